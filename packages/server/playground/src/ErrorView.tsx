import { ISLAND_ATTRIBUTES } from "@svc/protocol";
import type { LiveErrorLocation, SvcError } from "@svc/react";
import { useSvc } from "@svc/react";
import { type ReactNode, type RefObject, useEffect, useState } from "react";
import { mapStack, type StackFrame } from "./mapStack.ts";

export interface ErrorViewProps {
  name: string;
  error: SvcError;
  /** The bundler's positions from the live-reload `error` event, when there was one. */
  locations: readonly LiveErrorLocation[] | undefined;
  retry: () => void;
  /** Receives `retry` while this error is shown (the `r` key). */
  retryRef?: RefObject<(() => void) | undefined>;
}

/** What the stage shows when the component fails to load, validate or render. */
export function ErrorView({ name, error, locations, retry, retryRef }: ErrorViewProps): ReactNode {
  useEffect(() => {
    if (retryRef === undefined) return;
    retryRef.current = retry;
    return () => {
      if (retryRef.current === retry) retryRef.current = undefined;
    };
  }, [retry, retryRef]);
  const cause = error.kind === "Render" ? error.cause : undefined;
  return (
    <section
      className="pg-error"
      role="alert"
      {...{ [ISLAND_ATTRIBUTES.error]: error.kind }}
      aria-live="assertive"
    >
      <header className="pg-error-head">
        <span className="pg-error-kind">{headline(error, name)}</span>
        <button
          type="button"
          className="pg-button"
          onClick={retry}
          title="Render the component again (R)"
        >
          Retry
        </button>
      </header>
      <pre className="pg-error-message">{messageOf(error, cause)}</pre>
      {error.kind === "SchemaValidation" && "issues" in error ? (
        <ul className="pg-issues">
          {(error as SvcError & { issues: { prop: string; message: string }[] }).issues.map(
            (issue) => (
              <li key={`${issue.prop}:${issue.message}`}>
                <code>{issue.prop || "(props)"}</code> {issue.message}
              </li>
            ),
          )}
        </ul>
      ) : null}
      {locations !== undefined && locations.length > 0 && isBuildFailure(error) ? (
        <CodeFrames name={error.component ?? name} locations={locations} />
      ) : null}
      {cause instanceof Error && typeof cause.stack === "string" ? (
        <Stack stack={cause.stack} />
      ) : null}
    </section>
  );
}

function headline(error: SvcError, name: string): string {
  // A component this one loads (useComponent) is named: the failure is that one's.
  const which =
    error.component !== undefined && error.component !== name
      ? `"${error.component}" (loaded by ${name})`
      : "The component";
  switch (error.kind) {
    case "Render":
      return `${which} threw while rendering`;
    case "SchemaValidation":
      return which === "The component"
        ? "The props do not match schema.json"
        : `The props of ${which} do not match schema.json`;
    case "ComponentNotFound":
      return "No such component";
    default:
      return isBuildFailure(error) ? `${which} does not build` : `${which} did not load`;
  }
}

function isBuildFailure(error: SvcError): boolean {
  return error.kind === "BundleLoad" && /failed to build/.test(error.message);
}

function messageOf(error: SvcError, cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  if (cause !== undefined) return String(cause);
  // "Component "x" failed to build: Could not bundle "x": Impl.tsx:2:13: …" → the esbuild part.
  return error.message.replace(
    /^Component "[^"]*" failed to build: Could not bundle "[^"]*": /,
    "",
  );
}

/** esbuild's positions with their source line and a caret under the column. */
function CodeFrames({
  name,
  locations,
}: {
  name: string;
  locations: readonly LiveErrorLocation[];
}): ReactNode {
  return (
    <div className="pg-frames">
      {locations.map((location) => {
        const column = (location.column ?? 0) + 1;
        const where = `component://${name}/${location.file}:${location.line ?? 0}:${column}`;
        const gutter = String(location.line ?? "");
        return (
          <figure
            className="pg-frame pg-frame-mapped"
            key={`${where}:${location.text}`}
            data-location={where}
          >
            <figcaption>
              <span className="pg-frame-file">{where}</span>
              <span className="pg-frame-fn">{location.text}</span>
            </figcaption>
            {location.lineText !== undefined ? (
              <pre className="pg-code">
                <span className="pg-code-line pg-code-current">
                  <span className="pg-code-gutter">{gutter}</span>
                  {location.lineText}
                </span>
                <span className="pg-code-line pg-code-caret">
                  <span className="pg-code-gutter">{" ".repeat(gutter.length)}</span>
                  {`${" ".repeat(column - 1)}^`}
                </span>
              </pre>
            ) : null}
          </figure>
        );
      })}
    </div>
  );
}

/** The thrown error's stack, component frames mapped to the original files. */
function Stack({ stack }: { stack: string }): ReactNode {
  const { client } = useSvc();
  const [frames, setFrames] = useState<StackFrame[] | undefined>(undefined);
  const [showAll, setShowAll] = useState(false);
  useEffect(() => {
    let current = true;
    mapStack(stack, client.apiBase).then(
      (mapped) => current && setFrames(mapped),
      () => current && setFrames([]),
    );
    return () => {
      current = false;
    };
  }, [stack, client.apiBase]);
  if (frames === undefined) return <p className="pg-muted">Mapping the stack…</p>;
  const own = frames.filter((frame) => frame.mapped);
  const hidden = frames.length - own.length;
  const shown = showAll || own.length === 0 ? frames : own;
  return (
    <div className="pg-frames">
      {shown.map((frame, index) => (
        <Frame
          frame={frame}
          open={index === 0 || frame === own[0]}
          // biome-ignore lint/suspicious/noArrayIndexKey: a stack's frames have no identity but their place
          key={`${index}:${frame.file}`}
        />
      ))}
      {hidden > 0 && own.length > 0 ? (
        <button type="button" className="pg-link" onClick={() => setShowAll(!showAll)}>
          {showAll ? "Hide" : "Show"} {hidden} frame{hidden === 1 ? "" : "s"} outside components
        </button>
      ) : null}
    </div>
  );
}

function Frame({ frame, open }: { frame: StackFrame; open: boolean }): ReactNode {
  const where = `${frame.file}:${frame.line}:${frame.column}`;
  const width = String(frame.context?.at(-1)?.line ?? frame.line).length;
  return (
    <figure
      className={frame.mapped ? "pg-frame pg-frame-mapped" : "pg-frame"}
      data-location={frame.mapped ? where : undefined}
    >
      <figcaption>
        <span className="pg-frame-fn">{frame.fn ?? "(anonymous)"}</span>
        <span className="pg-frame-file">{where}</span>
      </figcaption>
      {frame.context !== undefined ? (
        <pre className="pg-code">
          {(open ? frame.context : frame.context.filter((l) => l.line === frame.line)).map((l) => (
            <span
              key={l.line}
              className={l.line === frame.line ? "pg-code-line pg-code-current" : "pg-code-line"}
            >
              <span className="pg-code-gutter">{String(l.line).padStart(width)}</span>
              {l.text}
            </span>
          ))}
        </pre>
      ) : null}
    </figure>
  );
}
