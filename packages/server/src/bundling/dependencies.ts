/**
 * Which components a bundle asks for by name, found at bundle time so the browser can fetch
 * them in parallel with the bundle itself (metadata `dependencies`, manifest `dependencies`,
 * the bundle response's `Link: rel=modulepreload`).
 *
 * The rule: in every user source of the bundle's module graph (each input of esbuild's
 * metafile that is a script outside `node_modules`), a name counts when it is written as a
 * string literal (or a template literal without `${}`) in
 *
 * - `useComponent("image")`, also `svc.useComponent("image")`;
 * - `<ServerComponent name="image" />`, also `name={"image"}` and `<svc.ServerComponent …>`;
 * - `jsx(ServerComponent, { name: "image" })` — likewise `jsxs`, `jsxDEV`, `_jsx`,
 *   `createElement`, `React.createElement`;
 *
 * where `useComponent` / `ServerComponent` are those identifiers or any local alias of
 * `@svc/react`'s exports (`import { useComponent as load } from "@svc/react"`). Files are
 * parsed (Babel's parser, TypeScript and JSX), not searched: names in comments and in other
 * strings never count. A name computed at run time (`useComponent(\`slide.${kind}\`)`,
 * `useComponent(name)`) is not found and loads on demand, as before. Names that are no valid
 * component name, and the bundle's own name, are left out. A file the parser cannot read
 * contributes nothing (esbuild accepted it, so this only costs the preload).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, sep } from "node:path";
import { isValidName } from "@svc/protocol";

type Babel = typeof import("@babel/parser");

/** Parsed sources kept by content, so a rebuild parses only the files that changed. */
const parsed = new Map<string, readonly string[]>();
const MAX_PARSED = 4096;

let babel: Promise<Babel> | undefined;

/**
 * The parser, loaded on first use: a server that never bundles never loads it. Bundlers call
 * it as a build starts, so loading it overlaps the first build instead of following it.
 */
export function loadParser(): Promise<Babel> {
  babel ??= import("@babel/parser");
  return babel;
}

/** The extensions parsed, and whether their files may hold JSX and TypeScript. */
const SCRIPTS: Readonly<Record<string, { typescript: boolean; jsx: boolean }>> = {
  ".ts": { typescript: true, jsx: false },
  ".mts": { typescript: true, jsx: false },
  ".cts": { typescript: true, jsx: false },
  ".tsx": { typescript: true, jsx: true },
  ".js": { typescript: false, jsx: true },
  ".mjs": { typescript: false, jsx: true },
  ".cjs": { typescript: false, jsx: true },
  ".jsx": { typescript: false, jsx: true },
};

/** Whether `path` (absolute) is a user source whose references count: a script, no package. */
export function isUserSource(path: string): boolean {
  return (
    Object.hasOwn(SCRIPTS, extname(path).toLowerCase()) &&
    !path.includes(`${sep}node_modules${sep}`)
  );
}

/** Up to this many files are read synchronously. */
const SYNC_READS = 32;

/** What a file must mention to ask for a component by name. */
const MENTIONED = ["useComponent", "ServerComponent"] as const;
const MENTION = new RegExp(MENTIONED.join("|"));

/** Whether the bytes `code` hold one of {@link MENTIONED}: searched, not decoded. */
function mentionsComponents(code: Uint8Array): boolean {
  const bytes = Buffer.from(code.buffer, code.byteOffset, code.byteLength);
  return MENTIONED.some((name) => bytes.includes(name));
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The components the files `inputs` (absolute paths, as the bundler reports them) ask for with
 * a literal name, sorted and without duplicates or `self`. Only {@link isUserSource} files are
 * read. Read after the build that listed them: an edit in between happened after the build
 * started, which the dev cache's racy check already treats as "do not keep this bundle".
 *
 * `output`, the bundle those inputs made: when it names neither `useComponent` nor
 * `ServerComponent`, nothing is read. Code that calls either imports it from `@svc/react`,
 * which every bundle leaves external, and the import keeps its name, minified or not; so a
 * bundle without the names asks for no component (a call esbuild dropped as dead code does
 * not count).
 */
export async function detectDependencies(
  inputs: readonly string[],
  self?: string,
  output?: Uint8Array,
): Promise<string[]> {
  if (output !== undefined && !mentionsComponents(output)) return [];
  const files = inputs.filter(isUserSource);
  if (files.length === 0) return [];
  // A component's few files are read at once (a stat and a read each, ~10 µs); a graph of many
  // through the thread pool, without holding up the event loop (each read is then four trips).
  const texts =
    files.length <= SYNC_READS
      ? files.map(readOrUndefined)
      : await Promise.all(files.map((file) => readFile(file, "utf8").catch(() => undefined)));
  // Only a file that names `useComponent` or `ServerComponent` can count (an alias is
  // imported under that name): the others need no parse.
  const candidates = texts.flatMap((text, index) =>
    text !== undefined && MENTION.test(text) ? [{ text, file: files[index] as string }] : [],
  );
  if (candidates.length === 0) return [];
  const parser = await loadParser();
  const names = new Set<string>();
  for (const { text, file } of candidates) {
    for (const name of referencesOf(parser, text, file)) names.add(name);
  }
  if (self !== undefined) names.delete(self);
  return [...names].sort();
}

/**
 * The component names `source` asks for with a literal argument (see the module comment),
 * sorted, without duplicates. `file` decides the syntax (by its extension).
 */
export async function findComponentReferences(source: string, file: string): Promise<string[]> {
  return [...referencesOf(await loadParser(), source, file)].sort();
}

function referencesOf(parser: Babel, source: string, file: string): readonly string[] {
  const syntax = SCRIPTS[extname(file).toLowerCase()] ?? { typescript: true, jsx: true };
  const key = `${syntax.typescript ? "t" : ""}${syntax.jsx ? "j" : ""}:${createHash("sha1").update(source).digest("base64")}`;
  const known = parsed.get(key);
  if (known !== undefined) return known;
  let names: readonly string[];
  try {
    const ast = parser.parse(source, {
      sourceType: "unambiguous",
      sourceFilename: file,
      errorRecovery: true,
      allowReturnOutsideFunction: true,
      allowUndeclaredExports: true,
      plugins: [
        ...(syntax.typescript ? (["typescript"] as const) : []),
        ...(syntax.jsx ? (["jsx"] as const) : []),
        "decorators",
      ],
    });
    names = collect(ast.program as unknown as AstNode);
  } catch {
    names = [];
  }
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(key, names);
  return names;
}

/** A Babel AST node, as far as this walk looks at it. */
interface AstNode {
  type: string;
  [key: string]: unknown;
}

const JSX_FACTORIES = new Set([
  "jsx",
  "jsxs",
  "jsxDEV",
  "_jsx",
  "_jsxs",
  "_jsxDEV",
  "createElement",
]);

function collect(program: AstNode): string[] {
  const hooks = new Set(["useComponent"]);
  const elements = new Set(["ServerComponent"]);
  // Local aliases of @svc/react's exports (imports are hoisted: read them first).
  for (const statement of program.body as AstNode[]) {
    if (statement.type !== "ImportDeclaration") continue;
    if ((statement.source as AstNode).value !== "@svc/react") continue;
    for (const specifier of statement.specifiers as AstNode[]) {
      if (specifier.type !== "ImportSpecifier") continue;
      const imported = nameOf(specifier.imported as AstNode);
      const local = (specifier.local as AstNode).name as string;
      if (imported === "useComponent") hooks.add(local);
      if (imported === "ServerComponent") elements.add(local);
    }
  }
  const isHook = (callee: AstNode) => refersTo(callee, hooks, "useComponent");
  const isElement = (node: AstNode) => refersTo(node, elements, "ServerComponent");

  const found = new Set<string>();
  const add = (value: string | undefined) => {
    if (value !== undefined && isValidName(value)) found.add(value);
  };
  const stack: unknown[] = [program];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    if (!isNode(node)) continue;
    switch (node.type) {
      case "CallExpression":
      case "OptionalCallExpression": {
        const callee = node.callee as AstNode;
        const [first, second] = node.arguments as AstNode[];
        if (first !== undefined && isHook(callee)) {
          add(literalOf(first));
        } else if (first !== undefined && isJsxFactory(callee) && isElement(first)) {
          if (second?.type === "ObjectExpression") add(nameProperty(second));
        }
        break;
      }
      case "JSXOpeningElement":
        if (isElement(node.name as AstNode)) {
          for (const attribute of node.attributes as AstNode[]) {
            if (attribute.type !== "JSXAttribute") continue;
            if ((attribute.name as AstNode).name !== "name") continue;
            const value = attribute.value as AstNode | null;
            if (value?.type === "JSXExpressionContainer") {
              add(literalOf(value.expression as AstNode));
            } else if (value !== null) {
              add(literalOf(value));
            }
          }
        }
        break;
    }
    for (const key in node) {
      if (key === "loc" || key === "extra" || key.endsWith("Comments")) continue;
      const child = node[key];
      if (typeof child === "object" && child !== null) stack.push(child);
    }
  }
  return [...found];
}

function isNode(value: unknown): value is AstNode {
  return typeof value === "object" && value !== null && typeof (value as AstNode).type === "string";
}

/** `node` is one of `locals`, or `<anything>.<member>` (a namespace import, `svc.useComponent`). */
function refersTo(node: AstNode, locals: ReadonlySet<string>, member: string): boolean {
  switch (node.type) {
    case "Identifier":
    case "JSXIdentifier":
      return locals.has(node.name as string);
    case "MemberExpression":
    case "OptionalMemberExpression":
      return !node.computed && nameOf(node.property as AstNode) === member;
    case "JSXMemberExpression":
      return nameOf(node.property as AstNode) === member;
    case "TSNonNullExpression":
    case "TSAsExpression":
    case "ParenthesizedExpression":
      return refersTo(node.expression as AstNode, locals, member);
    default:
      return false;
  }
}

function isJsxFactory(callee: AstNode): boolean {
  if (callee.type === "Identifier") return JSX_FACTORIES.has(callee.name as string);
  if (callee.type === "MemberExpression" && !callee.computed) {
    const property = nameOf(callee.property as AstNode);
    return property !== undefined && JSX_FACTORIES.has(property);
  }
  // `(0, jsx)(…)`, as some compilers write calls of imports.
  if (callee.type === "SequenceExpression") {
    const last = (callee.expressions as AstNode[]).at(-1);
    return last !== undefined && isJsxFactory(last);
  }
  return false;
}

/** The literal value of `name` in an object expression (`{ name: "image", … }`). */
function nameProperty(object: AstNode): string | undefined {
  for (const property of object.properties as AstNode[]) {
    if (property.type !== "ObjectProperty" || property.computed) continue;
    if (nameOf(property.key as AstNode) === "name") return literalOf(property.value as AstNode);
  }
  return undefined;
}

/** An identifier's or string literal's text. */
function nameOf(node: AstNode): string | undefined {
  if (node.type === "Identifier" || node.type === "JSXIdentifier") return node.name as string;
  if (node.type === "StringLiteral") return node.value as string;
  return undefined;
}

/** The value of a string literal, or of a template literal without substitutions. */
function literalOf(node: AstNode): string | undefined {
  if (node.type === "StringLiteral") return node.value as string;
  if (node.type === "TemplateLiteral" && (node.expressions as unknown[]).length === 0) {
    const [quasi] = node.quasis as AstNode[];
    return ((quasi?.value as { cooked?: string | null } | undefined)?.cooked ?? undefined) as
      | string
      | undefined;
  }
  if (node.type === "TSAsExpression" || node.type === "TSSatisfiesExpression") {
    return literalOf(node.expression as AstNode);
  }
  return undefined;
}
