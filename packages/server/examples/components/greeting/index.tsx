export { default } from "./Greeting";
