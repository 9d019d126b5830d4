import styles from "./Image.module.css";
// Shipped with the component: served (or inlined) by svc like any imported file.
import placeholder from "./placeholder.svg";

export type ObjectFit = "cover" | "contain" | "fill" | "none" | "scale-down";

export interface ImageProps {
  /** Image URL. Default: the placeholder picture that comes with this example. */
  src?: string;
  alt?: string;
  size?: number;
  fit?: ObjectFit;
}

export default function Image({ src, alt = "", size = 240, fit = "cover" }: ImageProps) {
  return (
    <img
      className={`svc-image ${styles.image}`}
      src={src || placeholder}
      alt={alt}
      width={size}
      height={size}
      style={{ objectFit: fit }}
    />
  );
}
