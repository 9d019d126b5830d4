/**
 * Properties of the import rewriter (fast-check): any combination of import and export
 * statements, in any layout, rewrites to a module that binds, exports and behaves exactly
 * like the original would with real ES modules.
 *
 * The reference is the original module itself, evaluated by Node with every registry
 * specifier swapped for a `data:` URL of a real ES module that exports the registry
 * module's properties; the candidate is the rewritten module, evaluated against a fake
 * `globalThis.__MODULES__`. Both are real ES modules imported from `data:` URLs.
 */
import { parse } from "es-module-lexer/js";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ExportNotFoundError, ModuleNotFoundError } from "./errors.ts";
import type { ModuleRegistry } from "./moduleRegistry.ts";
import { type RewriteImportsOptions, rewriteImports as rewriteBundle } from "./rewriteImports.ts";
import { withImportTable } from "./test/importTable.ts";

/** The rewriter, given each module with the import table the server writes into bundles. */
const rewriteImports = (code: string, options: RewriteImportsOptions) =>
  rewriteBundle(withImportTable(code), options);

const value = (label: string) => Object.freeze({ label });

/** Registry modules with overlapping export names (so `export *` conflicts happen). */
const MODULES = {
  react: {
    default: value("React"),
    useState: value("useState"),
    useEffect: value("useEffect"),
    shared: value("react.shared"),
  },
  "react-dom": { createPortal: value("createPortal"), shared: value("dom.shared"), x: value("x") },
  goober: { styled: value("styled"), x: value("goober.x") },
  "@svc/react": { default: value("SvcReact"), useComponent: value("useComponent") },
} satisfies ModuleRegistry;

type Specifier = keyof typeof MODULES;
const SPECIFIERS = Object.keys(MODULES) as Specifier[];
const namesOf = (specifier: Specifier) => Object.keys(MODULES[specifier]);

/** Export names to draw from: some collide with registry export names on purpose. */
const EXPORT_NAMES = ["e0", "e1", "e2", "shared", "x", "styled", "default", "str-name", "ns"];

type Statement =
  | { kind: "default"; spec: Specifier }
  | { kind: "namespace"; spec: Specifier }
  | { kind: "named"; spec: Specifier; names: { name: string; alias: boolean; quoted: boolean }[] }
  | { kind: "defaultAndNamed"; spec: Specifier; names: string[] }
  | { kind: "defaultAndNamespace"; spec: Specifier }
  | { kind: "sideEffect"; spec: Specifier }
  | { kind: "exportStar"; spec: Specifier }
  | { kind: "exportStarAs"; spec: Specifier; as: string }
  | { kind: "exportFrom"; spec: Specifier; names: { name: string; as: string | undefined }[] }
  | { kind: "exportConst"; as: string }
  | { kind: "exportLocal"; as: string }
  | { kind: "dynamic"; spec: Specifier }
  | { kind: "decoy"; spec: Specifier }
  | { kind: "paren" };

const spec = fc.constantFrom(...SPECIFIERS);
/** Modules with a `default` export: an engine refuses a default import from the others. */
const specWithDefault = fc.constantFrom(
  ...SPECIFIERS.filter((s) => Object.hasOwn(MODULES[s], "default")),
);
const exportName = fc.constantFrom(...EXPORT_NAMES);
const importedName = (s: Specifier) => fc.constantFrom(...namesOf(s));

const statement: fc.Arbitrary<Statement> = fc.oneof(
  specWithDefault.map((s) => ({ kind: "default" as const, spec: s })),
  spec.map((s) => ({ kind: "namespace" as const, spec: s })),
  spec.chain((s) =>
    fc
      .array(fc.record({ name: importedName(s), alias: fc.boolean(), quoted: fc.boolean() }), {
        maxLength: 4,
      })
      .map((names) => ({ kind: "named" as const, spec: s, names })),
  ),
  specWithDefault.chain((s) =>
    fc
      .array(importedName(s), { maxLength: 3 })
      .map((names) => ({ kind: "defaultAndNamed" as const, spec: s, names })),
  ),
  specWithDefault.map((s) => ({ kind: "defaultAndNamespace" as const, spec: s })),
  spec.map((s) => ({ kind: "sideEffect" as const, spec: s })),
  spec.map((s) => ({ kind: "exportStar" as const, spec: s })),
  fc.tuple(spec, exportName).map(([s, as]) => ({ kind: "exportStarAs" as const, spec: s, as })),
  spec.chain((s) =>
    fc
      .array(fc.record({ name: importedName(s), as: fc.option(exportName, { nil: undefined }) }), {
        maxLength: 3,
      })
      .map((names) => ({ kind: "exportFrom" as const, spec: s, names })),
  ),
  exportName.map((as) => ({ kind: "exportConst" as const, as })),
  exportName.map((as) => ({ kind: "exportLocal" as const, as })),
  spec.map((s) => ({ kind: "dynamic" as const, spec: s })),
  spec.map((s) => ({ kind: "decoy" as const, spec: s })),
  fc.constant({ kind: "paren" as const }),
);

/** How statements are laid out: esbuild-like, minified, or with comments and line breaks. */
interface Layout {
  quote: '"' | "'";
  /** Space inside braces and around `from`. */
  space: string;
  /** Separator between statements. */
  separator: "\n" | ";" | ";\n";
  /** Comments and line breaks inside import statements. */
  noisy: boolean;
}

const layout: fc.Arbitrary<Layout> = fc.record({
  quote: fc.constantFrom('"' as const, "'" as const),
  space: fc.constantFrom("", " ", "  "),
  separator: fc.constantFrom("\n" as const, ";" as const, ";\n" as const),
  noisy: fc.boolean(),
});

/**
 * Renders the statements as module source, with `specifierOf` deciding what each specifier
 * is written as. Local and export names are made unique here, so the source is always a
 * valid module (a real engine rejects duplicate bindings and duplicate export names).
 */
function render(
  statements: readonly Statement[],
  l: Layout,
  specifierOf: (s: Specifier) => string,
): string {
  const q = (text: string) => `${l.quote}${text}${l.quote}`;
  // After a name, `from` needs a space before it; after `}` or a string it does not.
  const from = (s: Specifier) => ` from${l.space}${q(specifierOf(s))}`;
  const fromAfterBrace = (s: Specifier) => `${l.space}from${l.space}${q(specifierOf(s))}`;
  const gap = l.noisy ? " /* import x from 'react' */\n " : l.space;
  // The minimal lexer cannot read a quote in a comment after an import's first binding
  // (`import a, { /* ' */ }`): a BundleLoadError, see rewriteImports.test.ts. esbuild never
  // writes comments into an import statement; the decoy there has no quotes.
  const gapAfterDefault = l.noisy ? " /* import x from react */\n " : l.space;
  const exported = new Set<string>();
  const locals: string[] = [];
  const out: string[] = [];
  let n = 0;
  const local = () => {
    const name = `l${n++}`;
    locals.push(name);
    return name;
  };
  const claim = (name: string): string | undefined => {
    if (exported.has(name)) return undefined;
    exported.add(name);
    return name;
  };
  const asName = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : q(name));

  for (const st of statements) {
    const previous = out.at(-1) ?? "";
    switch (st.kind) {
      case "default":
        out.push(`import ${local()}${from(st.spec)}`);
        break;
      case "namespace":
        out.push(`import${l.space === "" ? "" : " "}*${l.space}as ${local()}${from(st.spec)}`);
        break;
      case "named": {
        const items = st.names.map(({ name, alias, quoted }) => {
          // A string name must be aliased, and so must `default`.
          if (quoted || alias || name === "default") {
            return `${quoted ? q(name) : name} as ${local()}`;
          }
          // A name used unaliased becomes a local of that name: only once.
          if (locals.includes(name)) return `${name} as ${local()}`;
          locals.push(name);
          return name;
        });
        out.push(
          `import${l.space}{${gap}${items.join(`,${gap}`)}${gap}}${fromAfterBrace(st.spec)}`,
        );
        break;
      }
      case "defaultAndNamed": {
        const first = local();
        const items = st.names.map((name) => `${name} as ${local()}`);
        out.push(
          `import ${first},${l.space}{${gapAfterDefault}${items.join(`,${l.space}`)}${gapAfterDefault}}${fromAfterBrace(st.spec)}`,
        );
        break;
      }
      case "defaultAndNamespace":
        out.push(`import ${local()},${l.space}* as ${local()}${from(st.spec)}`);
        break;
      case "sideEffect":
        out.push(`import${l.space === "" ? "" : " "}${q(specifierOf(st.spec))}`);
        break;
      case "exportStar":
        out.push(`export${l.space === "" ? "" : " "}*${fromAfterBrace(st.spec)}`);
        break;
      case "exportStarAs": {
        const as = claim(st.as);
        if (as !== undefined) out.push(`export * as ${asName(as)}${from(st.spec)}`);
        break;
      }
      case "exportFrom": {
        const items: string[] = [];
        for (const { name, as } of st.names) {
          const target = claim(as ?? name);
          if (target === undefined) continue;
          items.push(target === name ? name : `${name} as ${asName(target)}`);
        }
        out.push(
          `export${l.space}{${gap}${items.join(`,${gap}`)}${gap}}${fromAfterBrace(st.spec)}`,
        );
        break;
      }
      case "exportConst": {
        // Only identifiers can be declared; other names go through a local clause.
        const as = claim(st.as);
        if (as === undefined) break;
        const id = `c${n++}`;
        out.push(`const ${id} = ${q(`own ${as}`)}`);
        out.push(as === "default" ? `export default ${id}` : `export { ${id} as ${asName(as)} }`);
        break;
      }
      case "exportLocal": {
        // Re-exports an imported binding through a local export clause.
        const binding = locals.at(-1);
        if (binding === undefined) break;
        const as = claim(st.as);
        if (as !== undefined) out.push(`export { ${binding} as ${asName(as)} }`);
        break;
      }
      case "dynamic":
        out.push(`globalThis.__dynamic.push(await import(${q(specifierOf(st.spec))}))`);
        break;
      case "paren":
        // A statement opening with `(`: right after an import (which ends itself without a
        // semicolon) it is a statement of its own, and must stay one once the import is gone.
        out.push(
          `${/^(?:import|export)\b.*\bfrom\b/s.test(previous) || previous.startsWith("import") ? "" : ";"}(globalThis.__dynamic.push("paren"))`,
        );
        break;
      case "decoy":
        // Import-shaped text that is not an import: left alone.
        out.push(`const d${n++} = ${q(`import x from \\${l.quote}${st.spec}\\${l.quote}`)}`);
        out.push(`/* export * from "${st.spec}" */ void 0`);
        break;
    }
  }
  out.push(`export const __seen = [${locals.join(", ")}]`);
  return `${out.join(l.separator)}\n`;
}

/** A real ES module exporting the properties of registry module `s` (the reference). */
function referenceModule(s: Specifier): string {
  const names = namesOf(s);
  const lines = [`const m = globalThis.__reference[${JSON.stringify(s)}];`];
  names.forEach((name, i) => {
    lines.push(`const v${i} = m[${JSON.stringify(name)}];`);
    lines.push(`export { v${i} as ${JSON.stringify(name)} };`);
  });
  return dataUrl(lines.join("\n"));
}

function dataUrl(code: string): string {
  const bytes = new TextEncoder().encode(code);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `data:text/javascript;base64,${btoa(binary)}`;
}

const REFERENCE_URLS = Object.fromEntries(SPECIFIERS.map((s) => [s, referenceModule(s)])) as Record<
  Specifier,
  string
>;

interface Observed {
  exports: unknown;
  seen: unknown;
  dynamic: unknown;
}

declare global {
  var __dynamic: unknown[];
  var __reference: ModuleRegistry | undefined;
}

let observations = 0;

/**
 * Imports `code` and describes what it bound and exported. A module namespace (reference) and
 * a registry object (rewritten) that hold the same names and values describe the same.
 */
async function observe(code: string): Promise<Observed> {
  globalThis.__dynamic = [];
  // A URL of its own each time: two cases can rewrite to the same code (the blanked import
  // keeps no quote), and a URL imported before is not evaluated again — its side effects
  // would be missing.
  const url = dataUrl(`${code}\n// observation ${observations++}`);
  const module = (await import(/* @vite-ignore */ url)) as Record<string, unknown>;
  const { __seen, ...exports } = module;
  return {
    exports: describeValue(exports),
    seen: describeValue(__seen),
    dynamic: describeValue(globalThis.__dynamic),
  };
}

function describeValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(describeValue);
  if (typeof v === "object" && v !== null && !Object.isFrozen(v)) {
    // A namespace or a registry module: its names (sorted) and their values.
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((key) => [key, describeValue((v as Record<string, unknown>)[key])]),
    );
  }
  return v;
}

describe("rewriteImports (properties)", () => {
  let saved: ModuleRegistry | undefined;
  beforeEach(() => {
    saved = globalThis.__MODULES__;
    globalThis.__MODULES__ = MODULES;
    globalThis.__reference = MODULES;
  });
  afterEach(() => {
    globalThis.__MODULES__ = saved;
    globalThis.__reference = undefined;
  });

  it("rewrites any mix of import/export statements into a module that binds and exports the same", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(statement, { minLength: 1, maxLength: 12 }),
        layout,
        async (statements, l) => {
          const reference = await observe(render(statements, l, (s) => REFERENCE_URLS[s]));
          const source = render(statements, l, (s) => s);
          const rewritten = rewriteImports(source, {
            component: "prop",
            modules: MODULES,
            sourceURL: false,
          });
          // No static import or re-export of a registry module is left for the browser.
          const [imports] = parse(rewritten);
          expect(imports.filter((i) => i.type === "static" || i.type === "reexport-star")).toEqual(
            [],
          );
          // Every line of the original is still there, below the reserved first line the
          // declarations fill (the server's map counts that line: source maps stay exact).
          expect(rewritten.split("\n").length).toBe(source.split("\n").length + 1);
          expect(await observe(rewritten)).toEqual(reference);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("rejects an import of a name a registry module lacks, as an engine would (never a silent undefined)", async () => {
    const missing = fc.record({
      spec,
      name: fc.constantFrom("nope", "useNothing", "createRoot"),
      form: fc.constantFrom("import", "export"),
    });
    await fc.assert(
      fc.asyncProperty(missing, async ({ spec: s, name, form }) => {
        const write = (specifier: string) =>
          form === "import"
            ? `import { ${name} as y } from "${specifier}";\nexport const __seen = [y];\n`
            : `export { ${name} } from "${specifier}";\nexport const __seen = [];\n`;
        // The engine refuses to link it…
        await expect(observe(write(REFERENCE_URLS[s]))).rejects.toThrow(SyntaxError);
        // …and the rewriter refuses it with the module and the name.
        expect(() => rewriteImports(write(s), { component: "c", modules: MODULES })).toThrow(
          ExportNotFoundError,
        );
      }),
      { numRuns: 50 },
    );
  });

  it("names the module and the component for any statically imported specifier the registry lacks", () => {
    const unknown = fc.stringMatching(/^(?:@[a-z]{1,6}\/)?[a-z][a-z0-9._/-]{0,20}$/);
    fc.assert(
      fc.property(unknown, statement, layout, (specifier, st, l) => {
        fc.pre(!Object.hasOwn(MODULES, specifier));
        if (!("spec" in st) || st.kind === "dynamic" || st.kind === "decoy") return;
        const code = render([st], l, () => specifier);
        let caught: unknown;
        try {
          rewriteImports(code, { component: "ui.table", modules: MODULES });
        } catch (error) {
          caught = error;
        }
        // `export { } from "x"` binds nothing but still loads "x": it must exist as well.
        expect(caught).toBeInstanceOf(ModuleNotFoundError);
        expect((caught as ModuleNotFoundError).module).toBe(specifier);
        expect((caught as Error).message).toContain('"ui.table"');
      }),
      { numRuns: 200 },
    );
  });
});
