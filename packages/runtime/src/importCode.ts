/** A module namespace: export name → value. */
export type ComponentModule = Readonly<Record<string, unknown>>;

/**
 * Evaluates ES module source by importing it from a `blob:` URL: no `eval`, no
 * `new Function`, so a Content-Security-Policy of `script-src 'self' blob:` is enough.
 */
export async function importCode(code: string): Promise<ComponentModule> {
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  try {
    return (await import(/* @vite-ignore */ /* webpackIgnore: true */ url)) as ComponentModule;
  } finally {
    // The module map keeps the evaluated module; the blob itself is no longer needed.
    URL.revokeObjectURL(url);
  }
}
