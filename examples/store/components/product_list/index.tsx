export { default } from "./ProductList";
