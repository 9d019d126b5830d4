export type ObjectFit = "cover" | "contain" | "fill" | "none" | "scale-down";

export interface ImageProps {
  src: string;
  alt?: string;
  size?: number;
  fit?: ObjectFit;
}

export default function Image({ src, alt = "", size = 240, fit = "cover" }: ImageProps) {
  return (
    <img
      className="svc-image"
      src={src}
      alt={alt}
      width={size}
      height={size}
      style={{ objectFit: fit, borderRadius: 8, display: "block" }}
    />
  );
}
