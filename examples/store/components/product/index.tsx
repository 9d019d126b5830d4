export type { ProductProps } from "./Product";
export { default } from "./Product";
