import { useComponent } from "@svc/react";
import { Suspense, useEffect, useState } from "react";
import { nextIndex } from "./nextIndex";
import "./carousel.css";

export interface CarouselProps {
  images: string[];
  autoplay?: boolean;
  interval?: number;
  size?: number;
}

/** Renders each slide with the `image` component, loaded at run time through useComponent. */
function Slide({ src, size }: { src: string; size: number }) {
  const Image = useComponent<{ src: string; alt?: string; size?: number }>("image");
  return <Image src={src} alt="" size={size} />;
}

export default function Carousel({
  images,
  autoplay = false,
  interval = 3000,
  size = 240,
}: CarouselProps) {
  const [index, setIndex] = useState(0);
  useEffect(() => {
    if (!autoplay || images.length < 2) return;
    const timer = setInterval(() => setIndex((i) => nextIndex(i, 1, images.length)), interval);
    return () => clearInterval(timer);
  }, [autoplay, interval, images.length]);

  if (images.length === 0) return <p className="svc-carousel">No images.</p>;
  const current = images[index % images.length] as string;
  return (
    <figure className="svc-carousel">
      <Suspense fallback={<div style={{ width: size, height: size }}>Loading…</div>}>
        <Slide src={current} size={size} />
      </Suspense>
      <figcaption>
        <button
          type="button"
          aria-label="previous"
          onClick={() => setIndex((i) => nextIndex(i, -1, images.length))}
        >
          ‹
        </button>
        <span data-testid="slide">
          {index + 1} / {images.length}
        </span>
        <button
          type="button"
          aria-label="next"
          onClick={() => setIndex((i) => nextIndex(i, 1, images.length))}
        >
          ›
        </button>
      </figcaption>
    </figure>
  );
}
