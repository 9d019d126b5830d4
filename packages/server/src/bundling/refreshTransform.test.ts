import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { describe, expect, it, onTestFinished } from "vitest";
import { build } from "../build/build.ts";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { BundleError } from "../errors.ts";
import { silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import { writeTree } from "../test/fixtures.ts";
import { createBridgeHandler } from "../transports/bridgeHandler.ts";
import { createEsbuildOptions, esbuildBundler } from "./bundler.ts";
import { refreshTransform } from "./refreshTransform.ts";

const COUNTER = `import { useState } from "react";
import styles from "./counter.module.css";
import { Label } from "./Label";

export default function Counter() {
  const [count, setCount] = useState(0);
  return <button className={styles.b} onClick={() => setCount(count + 1)}><Label />{count}</button>;
}
`;

function fixture(): { dir: string; registry: ComponentRegistry } {
  const dir = mkdtempSync(join(tmpdir(), "svc-refresh-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeTree(
    {
      "counter/index.tsx": COUNTER,
      "counter/Label.tsx": "export const Label = () => <b>n</b>;\n",
      "counter/counter.module.css": ".b { color: red; }\n",
      "counter/format.ts": "export const format = (n: number): string => `${n}`;\n",
    },
    dir,
  );
  return { dir, registry: new ComponentRegistry(dir, { logger: silentLogger }) };
}

const text = (code: Uint8Array) => new TextDecoder().decode(code);

describe("refreshTransform", () => {
  it("registers each component under its component, relative path and name: no absolute path", async () => {
    const { dir, registry } = fixture();
    const counter = registry.get("counter" as never);
    if (counter === undefined) throw new Error("fixture missing");
    const code = text((await esbuildBundler.bundle(counter, { refresh: true })).code);
    expect(code).toContain('"counter:counter/index.tsx " + id');
    expect(code).toContain('"counter:counter/Label.tsx " + id');
    expect(code).toMatch(/\$RefreshReg\$\d*\(_c\d*, "Counter"\)/);
    expect(code).toContain("$RefreshSig$()");
    // A module without components or hooks is left to esbuild as it is.
    expect(code).not.toContain("counter/format.ts ");
    expect(code).not.toContain(dir);
    // Stable: the same sources give the same bytes.
    const again = await esbuildBundler.bundle(counter, { refresh: true });
    expect(text(again.code)).toBe(code);
  });

  it("keeps the source map's original sources", async () => {
    const { registry } = fixture();
    const counter = registry.get("counter" as never);
    if (counter === undefined) throw new Error("fixture missing");
    const code = text((await esbuildBundler.bundle(counter, { refresh: true })).code);
    const map = /sourceMappingURL=data:application\/json;base64,(\S+)/.exec(code)?.[1];
    const parsed = JSON.parse(Buffer.from(map ?? "", "base64").toString()) as {
      sources: string[];
      sourcesContent: string[];
    };
    const index = parsed.sources.indexOf("component://counter/index.tsx");
    expect(parsed.sourcesContent[index]).toBe(COUNTER);
  });

  it("leaves a file Babel cannot parse to esbuild, whose error names it", async () => {
    expect(
      await refreshTransform("export default function A() { return <p>; }", {
        idPrefix: "a:a/index.tsx",
        filename: "/x/a/index.tsx",
        loader: "tsx",
      }),
    ).toBeNull();
    const { dir, registry } = fixture();
    writeTree({ "counter/index.tsx": "export default function C() {\n  return <p>;\n}\n" }, dir);
    const counter = registry.get("counter" as never);
    if (counter === undefined) throw new Error("fixture missing");
    const error = await esbuildBundler.bundle(counter, { refresh: true }).catch((e) => e);
    expect(error).toBeInstanceOf(BundleError);
    // esbuild's own message, not Babel's.
    expect((error as BundleError).message).toMatch(/index\.tsx:\d+:\d+: Unexpected end of file/);
  });

  it("is what the handler set's development bundles get, unless turned off", async () => {
    const { registry } = fixture();
    const on = createHandlers(registry, { logger: silentLogger, watchFiles: false });
    const off = createHandlers(registry, {
      logger: silentLogger,
      watchFiles: false,
      bundleOptions: { refresh: false },
    });
    const production = createHandlers(registry, {
      logger: silentLogger,
      watchFiles: false,
      bundleOptions: { mode: "production" },
    });
    onTestFinished(async () => {
      await Promise.all([on.close?.(), off.close?.(), production.close?.()]);
    });
    expect(text((await on.getBundle("counter" as never)).code)).toContain("__svcRefresh");
    expect(text((await off.getBundle("counter" as never)).code)).not.toContain("RefreshReg");
    expect(text((await production.getBundle("counter" as never)).code)).not.toContain("RefreshReg");
  });

  it("is on in a bridge only where it has live reload", async () => {
    const { registry } = fixture();
    const bridge = (live: boolean) =>
      createBridgeHandler(registry, { live, logger: silentLogger, watchFiles: false });
    const [withLive, withoutLive] = [bridge(true), bridge(false)];
    onTestFinished(async () => {
      await Promise.all([withLive.close(), withoutLive.close()]);
    });
    const bundle = (handler: ReturnType<typeof bridge>) =>
      handler.handlers.getBundle("counter" as never).then(({ code }) => text(code));
    expect(await bundle(withLive)).toContain("__svcRefresh");
    expect(await bundle(withoutLive)).not.toContain("RefreshReg");
  });
});

describe("production bundles with Fast Refresh in the server", () => {
  it("svc build's esbuild options and bytes are the same whether refresh is asked for or not", async () => {
    const { registry } = fixture();
    const components = registry.list();
    const plain = createEsbuildOptions(components, { mode: "production", minify: true });
    const asked = createEsbuildOptions(components, {
      mode: "production",
      minify: true,
      refresh: true,
    });
    expect(asked.plugins?.map((plugin) => plugin.name)).toEqual(
      plain.plugins?.map((plugin) => plugin.name),
    );
    const [a, b] = await Promise.all([esbuild.build(plain), esbuild.build(asked)]);
    expect(b.outputFiles.map((file) => file.text)).toEqual(a.outputFiles.map((file) => file.text));
  });

  it("svc build writes no refresh registration", async () => {
    const { registry } = fixture();
    const out = mkdtempSync(join(tmpdir(), "svc-refresh-build-"));
    onTestFinished(() => rmSync(out, { recursive: true, force: true }));
    await build({ registry, outDir: out, logger: silentLogger } as Parameters<typeof build>[0]);
    const files = readdirSync(out, { recursive: true, withFileTypes: true }).filter(
      (entry) => entry.isFile() && /\.(m?js)$/.test(entry.name),
    );
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const code = readFileSync(join(file.parentPath, file.name), "utf8");
      expect(code).not.toMatch(/\$Refresh(Reg|Sig)\$|__svcRefresh/);
    }
  });
});
