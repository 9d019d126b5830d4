export { default } from "./Crasher";
