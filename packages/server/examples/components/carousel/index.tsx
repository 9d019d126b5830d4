export { default } from "./Carousel";
