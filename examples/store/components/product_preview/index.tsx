export { default } from "./ProductPreview";
