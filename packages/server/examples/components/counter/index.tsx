export { default } from "./Counter";
