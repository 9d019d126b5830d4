import { useState } from "react";

export interface CounterProps {
  initialValue?: number;
  step?: number;
  label?: string;
}

export default function Counter({ initialValue = 0, step = 1, label = "Count" }: CounterProps) {
  const [count, setCount] = useState(initialValue);
  return (
    <div className="svc-counter" style={{ display: "inline-flex", gap: 8, alignItems: "center" }}>
      <span>
        {label}: <output data-testid="count">{count}</output>
      </span>
      <button type="button" onClick={() => setCount((c) => c - step)} aria-label="decrement">
        −
      </button>
      <button type="button" onClick={() => setCount((c) => c + step)} aria-label="increment">
        +
      </button>
    </div>
  );
}
