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
  const moduleOf = (specifier: string): object => {
    const module = Object.hasOwn(modules, specifier) ? modules[specifier] : undefined;
    if (typeof module !== "object" && typeof module !== "function") {
      throw new ModuleNotFoundError(component, specifier, Object.keys(modules));
    }
    if (module === null) throw new ModuleNotFoundError(component, specifier, Object.keys(modules));
    return module;
  };
  const requireExport = (specifier: string, module: object, name: string) => {
    // `default` falls back to the namespace itself (CommonJS-style interop), so it never fails.
    if (name !== "default" && !(name in module)) {
      throw new ExportNotFoundError(component, name, [], specifier);
    }
  };
  const defaultOf = (variable: string) =>
    `("default" in ${variable} ? ${variable}.default : ${variable})`;

  let dynamicHelper: string | undefined;
  const edits: { start: number; end: number; text: string }[] = [];
  const blank = (start: number, end: number) => {
    // A leading `;` ends whatever statement came before, as the import's own end did.
    let text = ";";
    for (let i = start + 1; i < end; i++) {
      const c = code.charCodeAt(i);
      text += c === 10 || c === 13 || c === 0x2028 || c === 0x2029 ? code[i] : " ";
    }
    edits.push({ start, end, text });
  };

  // Names the module exports explicitly: an `export *` must not produce a duplicate of them.
  // (The minimal lexer reports no record for a bare `export *`, only for names.)
  const explicitExports = new Set(exports);
  // The clause of each re-export statement, by its import record.
  const reexports = new Map<ImportRecord, ReexportClause>();
  for (const record of imports) {
    if (isStatic(record) && code.startsWith("export", record.ss)) {
      reexports.set(record, record.c as ReexportClause);
    }
  }
  // Which modules' `export *` provide each name. As in ES modules, a name is ambiguous only
  // when two *different* modules provide it: `export *` twice from one module is not.
  const starNames = new Map<string, Set<string>>();
  for (const [record, clause] of reexports) {
    if (clause !== 0) continue;
    const specifier = record.n as string;
    if (!Object.hasOwn(modules, specifier)) continue;
    for (const key of Object.keys(moduleOf(specifier))) {
      const providers = starNames.get(key) ?? new Set<string>();
      providers.add(specifier);
      starNames.set(key, providers);
    }
  }
  /** Names already exported through an `export *`, so a repeated one adds no duplicate. */
  const starExported = new Set<string>();

  let metaName: string | undefined;
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
      blank(record.ss, record.se);
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
    if (reexport !== undefined) rewriteReexport(specifier, reexport, module);
    else rewriteImport(record, specifier, module);
    blank(record.ss, record.se);
  }

  function rewriteImport(record: ImportRecord, specifier: string, module: object) {
    // Read by the server (the table's clause): the page parses nothing.
    const [defaultName, namespace, named] = record.c as ImportClause;
    if (defaultName === null && namespace === null && named.length === 0) {
      return; // side-effect import: the module is already evaluated, it only has to exist
    }
    const variable = moduleVar(specifier);
    if (defaultName !== null) prelude.push(`const ${defaultName} = ${defaultOf(variable)};`);
    if (namespace !== null) prelude.push(`const ${namespace} = ${variable};`);
    const properties: string[] = [];
    for (const [imported, key, localName] of named) {
      if (imported === "default") {
        prelude.push(`const ${localName} = ${defaultOf(variable)};`);
        continue;
      }
      if (imported !== null) requireExport(specifier, module, imported);
      properties.push(`${key}: ${localName}`);
    }
    if (properties.length > 0) prelude.push(`const { ${properties.join(", ")} } = ${variable};`);
  }

  function rewriteReexport(specifier: string, clause: ReexportClause, module: object) {
    const variable = moduleVar(specifier);
    const pairs: string[] = [];
    if (clause === 0) {
      for (const name of Object.keys(module)) {
        // As in ES modules: `export *` skips `default`, names exported explicitly, and names
        // star exports of two different modules both provide.
        if (
          name === "default" ||
          explicitExports.has(name) ||
          starNames.get(name)?.size !== 1 ||
          starExported.has(name)
        ) {
          continue;
        }
        starExported.add(name);
        const alias = local();
        prelude.push(`const ${alias} = ${variable}[${JSON.stringify(name)}];`);
        pairs.push(`${alias} as ${exportName(name)}`);
      }
    } else if (Array.isArray(clause)) {
      pairs.push(`${variable} as ${clause[0]}`);
    } else {
      for (const [imported, key, as] of clause.n) {
        const alias = local();
        if (imported === "default") {
          prelude.push(`const ${alias} = ${defaultOf(variable)};`);
        } else {
          if (imported !== null) requireExport(specifier, module, imported);
          // A quoted name is a string literal already: its escapes mean what they meant.
          prelude.push(
            `const ${alias} = ${variable}[${isQuoted(key) ? key : JSON.stringify(key)}];`,
          );
        }
        pairs.push(`${alias} as ${as}`);
      }
    }
    if (pairs.length > 0) prelude.push(`export { ${pairs.join(", ")} };`);
  }

  if (metaName !== undefined) {
    prelude.push(
      `const ${metaName} = Object.freeze({ url: ${JSON.stringify(options.url)}, resolve: (s) => new URL(s, ${JSON.stringify(options.url)}).href });`,
    );
  }

  if (dynamicHelper !== undefined) {
    // Registry modules resolve to the shared instance; anything else keeps native behaviour.
    prelude.push(
      `const ${dynamicHelper} = (s, o) => typeof s === "string" && Object.hasOwn(${REGISTRY} ?? {}, s) ` +
        `? Promise.resolve(${REGISTRY}[s]) : o === undefined ? import(s) : import(s, o);`,
    );
  }

  edits.sort((a, b) => a.start - b.start);
  let body = "";
  let position = 0;
  for (const edit of edits) {
    body += code.slice(position, edit.start) + edit.text;
    position = edit.end;
  }
  body += code.slice(position);

  // `body` starts with the reserved empty line (the table's reader checked): the prelude
  // fills it. The source map comment stays last, as it came.
  const mapAt = body.lastIndexOf("\n//# sourceMappingURL=") + 1;
  let result = prelude.join(" ") + (mapAt === 0 ? body : body.slice(0, mapAt));
  if (!result.endsWith("\n")) result += "\n";
  const sourceURL = options.sourceURL ?? `component://${component}/bundle.js`;
  if (sourceURL !== false) result += `//# sourceURL=${sourceURL}\n`;
  if (mapAt !== 0) result += body.slice(mapAt);
  return { code: result, stylesheets };
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
