import { useState } from "react";
import styles from "./Counter.module.css";

export interface CounterProps {
  initialValue?: number;
  step?: number;
  label?: string;
}

export default function Counter({ initialValue = 0, step = 1, label = "Count" }: CounterProps) {
  const [count, setCount] = useState(initialValue);
  return (
    <div className={`svc-counter ${styles.counter}`}>
      <span>
        {label}: <output data-testid="count">{count}</output>
      </span>
      <button
        type="button"
        className={styles.button}
        onClick={() => setCount((c) => c - step)}
        aria-label="decrement"
      >
        −
      </button>
      <button
        type="button"
        className={styles.button}
        onClick={() => setCount((c) => c + step)}
        aria-label="increment"
      >
        +
      </button>
    </div>
  );
}
