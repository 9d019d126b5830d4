/** The components the Python tests render (written to a temporary components directory). */
export const COMPONENTS: Record<string, string> = {
  "counter/index.tsx": `import { useState } from "react";
export default function Counter({ start = 0, label = "count" }: { start?: number; label?: string }) {
  const [count, setCount] = useState(start);
  return <button type="button" className="counter" onClick={() => setCount(count + 1)}>{label}: {count}</button>;
}
`,
  "counter/schema.json": JSON.stringify({
    type: "object",
    properties: { start: { type: "integer" }, label: { type: "string" } },
  }),
  // Shows its props as text: what crossed from Python to the browser, exactly.
  "echo/index.tsx": `export default function Echo(props: Record<string, unknown>) {
  return <pre className="echo">{JSON.stringify(props)}</pre>;
}
`,
  "crasher/index.tsx": `export default function Crasher(): never {
  throw new Error("boom");
}
`,
  // Waits \`ms\` before it renders (once per \`id\`), without holding its render worker.
  "slow/index.tsx": `import { use } from "react";
const waits = new Map<string, Promise<void>>();
export default function Slow({ ms = 1000, id = "" }: { ms?: number; id?: string }) {
  const key = id + ":" + ms;
  let wait = waits.get(key);
  if (wait === undefined) {
    wait = new Promise((resolve) => setTimeout(resolve, ms));
    waits.set(key, wait);
  }
  use(wait);
  return <p className="slow">waited {ms} ms</p>;
}
`,
  // Throws where there is no window (the server): the browser renders it instead.
  "browser_only/index.tsx": `export default function BrowserOnly({ text }: { text: string }) {
  if (typeof window === "undefined") throw new Error("needs a browser");
  return <p className="browser-only">{text}</p>;
}
`,
  "product/index.tsx": `export default function Product({ name, price }: { name: string; price: number }) {
  return <article className="product"><h3>{name}</h3><span>{price.toFixed(2)}</span></article>;
}
`,
  "product/schema.json": JSON.stringify({
    type: "object",
    properties: { name: { type: "string" }, price: { type: "number", minimum: 0 } },
    required: ["name", "price"],
  }),
};
