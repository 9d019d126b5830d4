import { useState } from "react";

// Uses a hook: with a second copy of React on the page it would throw instead of rendering.
export default function Counter({ label, start = 0 }: { label: string; start?: number }) {
  const [count, setCount] = useState(start);
  return (
    <button type="button" data-label={label} onClick={() => setCount(count + 1)}>
      {label} {count}
    </button>
  );
}
