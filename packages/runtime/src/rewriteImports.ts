import {
  type ImportClause,
  type ImportRecord,
  isStatic as isStaticImport,
  type ReexportClause,
  readImportTable,
} from "@svc/protocol";
import { BundleLoadError, ExportNotFoundError, ModuleNotFoundError } from "./errors.ts";

// The page lexes nothing: the server lexed each bundle with es-module-lexer's minimal build
// when it built it, and wrote where every import and re-export statement stands into the
// bundle's import table (`readImportTable` of the protocol), with the clause of each static
// import and re-export, read there by a small grammar. The page only writes declarations.

/** `ImportRecord.t`: the minimal build's numeric import types. */
const STATIC = 1;
const DYNAMIC = 2;
const IMPORT_META = 3;
const STATIC_SOURCE = 4;

export interface RewriteImportsOptions {
  /** Component name, for error messages and the `sourceURL`. */
  component: string;
  /** The module registry the rewritten code will read from (`window.__MODULES__`). */
  modules: Readonly<Record<string, unknown>>;
  /**
   * `//# sourceURL=` to give the module, so stack traces name the component instead of an
   * anonymous `blob:` URL. Default `component://<name>/bundle.js`; `false` adds none.
   */
  sourceURL?: string | false;
  /**
   * The URL the bundle was fetched from. `import.meta.url` in the rewritten code is this URL
   * (not the `blob:` URL it runs from), so the bundle finds its assets relative to itself.
   * Default: none (`import.meta` is left as it is).
   */
  url?: string;
}

/** A rewritten bundle and the stylesheets it imports. */
export interface RewrittenModule {
  code: string;
  /**
   * The specifiers of the stylesheets the bundle imports (`./card-3f2a9c0b1d4e.css`), in
   * cascade order, as written: relative to the bundle's URL. Their imports are removed from
   * the code; the loader applies them.
   */
  stylesheets: string[];
}

/** Expression the rewritten code reads runtime modules from. */
const REGISTRY = "globalThis.__MODULES__";
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const ABSOLUTE_URL = /^(?:https?|data|blob):/i;

/**
 * Rewrites the imports of a component bundle into reads from `window.__MODULES__`, so the
 * bundle can run from a `blob:` URL with no import map.
 *
 * Every import and re-export statement is blanked in place (same length, line breaks kept),
 * and the declarations that replace them go on the bundle's first line, which svc's server
 * leaves empty for them (`RESERVED_LINE`). Every other character therefore keeps its line and
 * column, so the bundle's source map holds as written, even for minified bundles, and is
 * never decoded. Dynamic `import(…)` keeps its length too: the keyword is swapped for a
 * 6-character helper.
 *
 * @throws ModuleNotFoundError when the bundle imports a module the registry lacks
 * @throws ExportNotFoundError when it imports a name a registry module does not export
 * @throws BundleLoadError when the code cannot be lexed
 */
export function rewriteImports(code: string, options: RewriteImportsOptions): string {
  return rewriteModule(code, options).code;
}

/**
 * {@link rewriteImports}, also returning the stylesheets the bundle imports: an import of a
 * relative `.css` file for its effect only (`import "./card-3f2a9c0b1d4e.css";`, as svc
 * writes them) is removed and listed instead of failing.
 */
export function rewriteModule(bundle: string, options: RewriteImportsOptions): RewrittenModule {
  const { component, modules } = options;
  const stylesheets: string[] = [];
  const { code, imports, exports } = readTable(bundle, component);

  // The declarations that replace the statements, each module read once into a local.
  const prefix = freeName(code, (n) => `__svc${n === 0 ? "" : n}$`);
  const prelude: string[] = [];
  const moduleVars = new Map<string, string>();
  let counter = 0;
  const local = () => `${prefix}${counter++}`;
  const moduleVar = (specifier: string): string => {
    let name = moduleVars.get(specifier);
    if (name === undefined) {
      name = local();
      moduleVars.set(specifier, name);
      prelude.push(`const ${name} = ${REGISTRY}[${JSON.stringify(specifier)}];`);
    }
    return name;
  };
  const moduleOf = (specifier: string) => registryModule(modules, specifier, component);
  const edits: Edit[] = [];
  const blank = (record: ImportRecord) => edits.push(blanked(code, record.ss, record.se));

  const [reexports, claimStarName] = readReexports(code, imports, exports, modules, moduleOf);

  let metaName: string | undefined;
  let dynamicHelper: string | undefined;
  for (const record of imports) {
    if (record.t === IMPORT_META) {
      if (options.url === undefined) continue;
      const text = code.slice(record.ss, record.se);
      // Same length as `import.meta`, so every column stays where it was.
      metaName ??= freeName(code, (n) => META_NAMES[n]);
      if (text.length >= metaName.length) {
        edits.push({ start: record.ss, end: record.se, text: metaName.padEnd(text.length, " ") });
      }
      continue;
    }
    if (!isStatic(record) && record.t !== STATIC_SOURCE) {
      // Dynamic imports; those with a phase (`import.source(…)`, `import.defer(…)`) are left.
      if (record.t !== DYNAMIC || code.slice(record.ss, record.ss + 6) !== "import") continue;
      dynamicHelper ??= freeName(code, (n) => DYNAMIC_HELPER_NAMES[n]);
      edits.push({ start: record.ss, end: record.ss + 6, text: dynamicHelper });
      continue;
    }
    const specifier = record.n;
    if (specifier === undefined) {
      throw new BundleLoadError(
        component,
        `Component "${component}": cannot read the specifier of \`${code.slice(record.ss, record.se)}\`.`,
      );
    }
    if (isStylesheetImport(code, record, specifier)) {
      stylesheets.push(specifier);
      blank(record);
      continue;
    }
    if (!Object.hasOwn(modules, specifier)) {
      if (ABSOLUTE_URL.test(specifier)) continue;
      throw new ModuleNotFoundError(component, specifier, Object.keys(modules));
    }
    if (record.t === STATIC_SOURCE) {
      throw new BundleLoadError(
        component,
        `Component "${component}" uses a source-phase import of "${specifier}", which svc cannot provide.`,
      );
    }
    const module = moduleOf(specifier);
    const reexport = reexports.get(record);
    const check = (name: string) => requireExport(component, specifier, module, name);
    if (reexport === undefined) {
      declareImport(prelude, record.c as ImportClause, () => moduleVar(specifier), check);
    } else {
      declareReexport(prelude, reexport, moduleVar(specifier), module, claimStarName, local, check);
    }
    blank(record);
  }

  declareHelpers(prelude, metaName, dynamicHelper, options.url);
  return { code: assemble(prelude, applyEdits(code, edits), options), stylesheets };
}

/** What stands for `import.meta` and `import(…)` in the rewritten code, where it needs them. */
function declareHelpers(
  prelude: string[],
  metaName: string | undefined,
  dynamicHelper: string | undefined,
  url: string | undefined,
): void {
  if (metaName !== undefined) {
    prelude.push(
      `const ${metaName} = Object.freeze({ url: ${JSON.stringify(url)}, resolve: (s) => new URL(s, ${JSON.stringify(url)}).href });`,
    );
  }
  if (dynamicHelper !== undefined) {
    // Registry modules resolve to the shared instance; anything else keeps native behaviour.
    prelude.push(
      `const ${dynamicHelper} = (s, o) => typeof s === "string" && Object.hasOwn(${REGISTRY} ?? {}, s) ` +
        `? Promise.resolve(${REGISTRY}[s]) : o === undefined ? import(s) : import(s, o);`,
    );
  }
}

/**
 * The bundle's re-export statements (the clause of each, by its import record), and what says
 * whether an `export *` among them exports a name — once: as in ES modules, `export *` skips
 * `default`, names exported explicitly, and names star exports of two different modules both
 * provide.
 */
function readReexports(
  code: string,
  imports: readonly ImportRecord[],
  exports: readonly string[],
  modules: Readonly<Record<string, unknown>>,
  moduleOf: (specifier: string) => object,
): [Map<ImportRecord, ReexportClause>, (name: string) => boolean] {
  const reexports = new Map<ImportRecord, ReexportClause>();
  for (const record of imports) {
    if (isStatic(record) && code.startsWith("export", record.ss)) {
      reexports.set(record, record.c as ReexportClause);
    }
  }
  // Names the module exports explicitly: an `export *` must not produce a duplicate of them.
  // (The minimal lexer reports no record for a bare `export *`, only for names.)
  const explicitExports = new Set(exports);
  const providers = starProviders(reexports, modules, moduleOf);
  /** Names already exported through an `export *`, so a repeated one adds no duplicate. */
  const starExported = new Set<string>();
  const claimStarName = (name: string) => {
    if (
      name === "default" ||
      explicitExports.has(name) ||
      providers.get(name)?.size !== 1 ||
      starExported.has(name)
    ) {
      return false;
    }
    starExported.add(name);
    return true;
  };
  return [reexports, claimStarName];
}

/** A stretch of the bundle replaced by text of the same length. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * The statement at `start…end` blanked: a `;` (it ends whatever statement came before, as
 * the import's own end did), then spaces, its line breaks kept.
 */
function blanked(code: string, start: number, end: number): Edit {
  let text = ";";
  for (let i = start + 1; i < end; i++) {
    const c = code.charCodeAt(i);
    text += c === 10 || c === 13 || c === 0x2028 || c === 0x2029 ? code[i] : " ";
  }
  return { start, end, text };
}

/** The registry's module `specifier`, which the bundle imports. */
function registryModule(
  modules: Readonly<Record<string, unknown>>,
  specifier: string,
  component: string,
): object {
  const module = Object.hasOwn(modules, specifier) ? modules[specifier] : undefined;
  if (module === null || (typeof module !== "object" && typeof module !== "function")) {
    throw new ModuleNotFoundError(component, specifier, Object.keys(modules));
  }
  return module;
}

function requireExport(component: string, specifier: string, module: object, name: string) {
  // `default` falls back to the namespace itself (CommonJS-style interop), so it never fails.
  if (name !== "default" && !(name in module)) {
    throw new ExportNotFoundError(component, name, [], specifier);
  }
}

function defaultOf(variable: string): string {
  return `("default" in ${variable} ? ${variable}.default : ${variable})`;
}

/**
 * Which modules' `export *` provide each name. As in ES modules, a name is ambiguous only
 * when two *different* modules provide it: `export *` twice from one module is not.
 */
function starProviders(
  reexports: ReadonlyMap<ImportRecord, ReexportClause>,
  modules: Readonly<Record<string, unknown>>,
  moduleOf: (specifier: string) => object,
): Map<string, Set<string>> {
  const providers = new Map<string, Set<string>>();
  for (const [record, clause] of reexports) {
    if (clause !== 0) continue;
    const specifier = record.n as string;
    if (!Object.hasOwn(modules, specifier)) continue;
    for (const key of Object.keys(moduleOf(specifier))) {
      const set = providers.get(key) ?? new Set<string>();
      set.add(specifier);
      providers.set(key, set);
    }
  }
  return providers;
}

/**
 * Adds to `lines` the declarations of one static import, read by the server (the table's
 * clause): the page parses nothing. `variable` declares the module's local, the first time
 * it is asked for.
 */
function declareImport(
  lines: string[],
  [defaultName, namespace, named]: ImportClause,
  variable: () => string,
  check: (name: string) => void,
): void {
  // A side-effect import: the module is already evaluated, it only has to exist.
  if (defaultName === null && namespace === null && named.length === 0) return;
  const module = variable();
  if (defaultName !== null) lines.push(`const ${defaultName} = ${defaultOf(module)};`);
  if (namespace !== null) lines.push(`const ${namespace} = ${module};`);
  const properties: string[] = [];
  for (const [imported, key, localName] of named) {
    if (imported === "default") {
      lines.push(`const ${localName} = ${defaultOf(module)};`);
      continue;
    }
    if (imported !== null) check(imported);
    properties.push(`${key}: ${localName}`);
  }
  if (properties.length > 0) lines.push(`const { ${properties.join(", ")} } = ${module};`);
}

/**
 * Adds to `lines` the declarations of one re-export from `variable`'s module, with their
 * `export` list. `claimStarName` says whether an `export *` exports a name.
 */
function declareReexport(
  lines: string[],
  clause: ReexportClause,
  variable: string,
  module: object,
  claimStarName: (name: string) => boolean,
  local: () => string,
  check: (name: string) => void,
): void {
  const pairs: string[] = [];
  if (clause === 0) {
    for (const name of Object.keys(module)) {
      if (!claimStarName(name)) continue;
      const alias = local();
      lines.push(`const ${alias} = ${variable}[${JSON.stringify(name)}];`);
      pairs.push(`${alias} as ${exportName(name)}`);
    }
  } else if (Array.isArray(clause)) {
    pairs.push(`${variable} as ${clause[0]}`);
  } else {
    for (const [imported, key, as] of clause.n) {
      const alias = local();
      if (imported === "default") {
        lines.push(`const ${alias} = ${defaultOf(variable)};`);
      } else {
        if (imported !== null) check(imported);
        // A quoted name is a string literal already: its escapes mean what they meant.
        lines.push(`const ${alias} = ${variable}[${isQuoted(key) ? key : JSON.stringify(key)}];`);
      }
      pairs.push(`${alias} as ${as}`);
    }
  }
  if (pairs.length > 0) lines.push(`export { ${pairs.join(", ")} };`);
}

/** `code` with the edits made, in order of position. */
function applyEdits(code: string, edits: Edit[]): string {
  edits.sort((a, b) => a.start - b.start);
  let body = "";
  let position = 0;
  for (const edit of edits) {
    body += code.slice(position, edit.start) + edit.text;
    position = edit.end;
  }
  return body + code.slice(position);
}

/**
 * The rewritten module: `body` starts with the reserved empty line (the table's reader
 * checked), which the prelude fills; the `sourceURL` goes before the source map comment, which
 * stays last, as it came.
 */
function assemble(prelude: string[], body: string, options: RewriteImportsOptions): string {
  const mapAt = body.lastIndexOf("\n//# sourceMappingURL=") + 1;
  let result = prelude.join(" ") + (mapAt === 0 ? body : body.slice(0, mapAt));
  if (!result.endsWith("\n")) result += "\n";
  const sourceURL = options.sourceURL ?? `component://${options.component}/bundle.js`;
  if (sourceURL !== false) result += `//# sourceURL=${sourceURL}\n`;
  if (mapAt !== 0) result += body.slice(mapAt);
  return result;
}

/**
 * The bundle's code without its import table, and the table, checked against the code: every
 * statement it names starts with `import` or `export` where it says.
 */
function readTable(bundle: string, component: string) {
  let tabled: ReturnType<typeof readImportTable>;
  try {
    tabled = readImportTable(bundle);
  } catch (error) {
    throw new BundleLoadError(
      component,
      `The bundle of component "${component}" has an unreadable import table: ${(error as Error).message}.`,
      { cause: error },
    );
  }
  if (tabled === undefined) {
    throw new BundleLoadError(
      component,
      `The bundle of component "${component}" has no import table (the \`//# svcImports=\` line svc's server writes): serve it with @svc/server, or rebuild it with the same version of svc.`,
    );
  }
  for (const record of tabled.imports) {
    if (record.t === DYNAMIC) continue;
    const keyword = tabled.code.slice(record.ss, record.ss + 6);
    if (keyword !== "import" && keyword !== "export") {
      throw new BundleLoadError(
        component,
        `The import table of component "${component}" does not match its code (no import at offset ${record.ss}): the bundle was changed after svc built it.`,
      );
    }
  }
  return tabled;
}

/** 11 characters each, the length of the `import.meta` they replace. */
const META_NAMES = Array.from("_0123456789", (c) => `__svc_meta${c}`);

/** `import "./x.css"` (a relative CSS file, for its effect only): a stylesheet of the bundle. */
function isStylesheetImport(code: string, record: ImportRecord, specifier: string): boolean {
  if (!/^\.\.?\//.test(specifier) || !/\.css$/i.test(specifier)) return false;
  if (record.t !== STATIC || code.startsWith("export", record.ss)) return false;
  // Nothing between the keyword and the specifier: no bindings.
  return code.slice(record.ss + "import".length, record.s - 1).trim() === "";
}

/** 6 characters each, the length of the `import` keyword they replace. */
const DYNAMIC_HELPER_NAMES = Array.from("IJKLMNOPQRSTUVWXYZ", (letter) => `__svc${letter}`);

/** The first candidate name that does not occur anywhere in `code`. */
function freeName(code: string, candidate: (n: number) => string | undefined): string {
  for (let n = 0; ; n++) {
    const name = candidate(n);
    if (name === undefined) throw new Error("svc: no free identifier for the import rewrite");
    if (!code.includes(name)) return name;
  }
}

function exportName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** Static imports and re-exports the rewriter replaces (with or without a `defer` phase). */
function isStatic(record: ImportRecord): boolean {
  return isStaticImport(record.t);
}

function isQuoted(token: string): boolean {
  return token.startsWith('"') || token.startsWith("'");
}
