/**
 * What a container renders: its component inside Suspense and an error boundary, with its
 * stylesheets, its props checked (development), and `@svc/react`'s provider when it needs one.
 * Made with the page's React (`pageModules.ts`).
 */
import { ISLAND_ATTRIBUTES } from "@svc/protocol";
import { validateProps } from "@svc/react";
import {
  adoptStylesheets,
  type ComponentModule,
  type ComponentStylesheet,
  getComponentExport,
  isSvcError,
  RenderError,
  SchemaValidationError,
  stylesheetsOf,
  UNAVAILABLE_TEXT,
} from "@svc/runtime";
import type * as React from "react";
import { liveFor } from "./loaderExtras.ts";
import { h, problem, R } from "./pageModules.ts";
import { metadataOf, moduleOf, providers, queryClientOf, type Source } from "./sources.ts";

// Replaced by the build.
declare const process: { env: { NODE_ENV?: string } };

/** What a container shows: its component, where it loads from, and its props. */
export interface ContainerState {
  name: string;
  source: Source;
  /** The server-rendered HTML kept on screen while the component loads (not for an island). */
  placeholder: string | undefined;
  props: Record<string, unknown> | undefined;
  /** Why its `data-svc-props` could not be read, if it could not. */
  propsError: string | undefined;
}

/** The tree a container renders. */
export function containerTree(state: ContainerState): React.ReactNode {
  if (problem !== undefined) {
    return h(ErrorMessage, { error: new Error(problem), source: state.source, name: state.name });
  }
  if (state.propsError !== undefined) {
    return h(ErrorMessage, {
      source: state.source,
      name: state.name,
      error: new Error(
        `Invalid ${ISLAND_ATTRIBUTES.props} for component "${state.name}": ${state.propsError}`,
      ),
    });
  }
  const { source, name } = state;
  const frame = { source, name, props: state.props ?? {}, revision: source.revision };
  Frame ??= createFrame();
  return h(
    Frame,
    frame,
    h(
      R.Suspense,
      {
        // Keep the server-rendered placeholder on screen until the component is ready (an
        // island hydrates the server's HTML instead).
        fallback:
          state.placeholder === undefined
            ? null
            : h("div", {
                [ISLAND_ATTRIBUTES.loading]: "",
                style: { display: "contents" },
                dangerouslySetInnerHTML: { __html: state.placeholder },
              }),
      },
      h(Loaded, frame),
    ),
  );
}

/**
 * The error display. Through an API the message, as text, in an element marked
 * `role="alert"`, and on a page that follows live reload (development) the error overlay over
 * the page while it is shown (from `loader.live.js`); in production (a static build) a
 * neutral placeholder, the details in the console only.
 */
function ErrorMessage({ error, source, name }: { error: Error; source: Source; name: string }) {
  const production = source.client.manifestUrl !== undefined;
  const overlay = source.live === true;
  // By message, not identity: a render error is wrapped anew at every render.
  R.useEffect(() => {
    if (production) {
      console.error(`svc: component "${name}" could not be shown:`, error);
      return;
    }
    if (!overlay) return;
    let hide: (() => void) | undefined;
    let gone = false;
    liveFor(source).then(
      ({ errorReportOf, showErrorOverlay }) => {
        if (!gone) hide = showErrorOverlay(errorReportOf(error, name));
      },
      // No `loader.live.js` (a CSP without `blob:`, an API without it): the message remains.
      () => {},
    );
    return () => {
      gone = true;
      hide?.();
    };
  }, [error.message, production, overlay, name, source]);
  return h(
    "div",
    {
      role: "alert",
      className: "svc-error",
      [ISLAND_ATTRIBUTES.error]: isSvcError(error) ? error.kind : "Error",
    },
    production ? UNAVAILABLE_TEXT : error.message,
  );
}

interface FrameProps {
  source: Source;
  name: string;
  props: Record<string, unknown>;
  revision: number;
  children?: React.ReactNode;
}

/** The error boundary class, made once with the page's React. */
let Frame: React.ComponentClass<FrameProps> | undefined;

/**
 * A container's error boundary: shows the failure, and starts over when the props change or
 * a component was fetched again (live reload, `svc.reload`).
 */
function createFrame() {
  return class Frame extends R.Component<FrameProps, { error: unknown }> {
    override state = { error: null as unknown };
    static getDerivedStateFromError(error: unknown) {
      return { error };
    }
    override componentDidUpdate(previous: FrameProps, before: { error: unknown }) {
      const { props, revision, name, source } = this.props;
      const { error } = this.state;
      // An error shown before this update, not one this update's render just threw.
      if (
        before.error !== null &&
        error !== null &&
        (previous.props !== props || previous.revision !== revision || previous.name !== name)
      ) {
        // The failed load it shows is tried again; one made since (a reload's) is shown as is.
        const module = source.modules.get(name);
        if (module?.status === "rejected" && module.reason === error) source.modules.delete(name);
        this.setState({ error: null });
      }
    }
    override render() {
      const { error } = this.state;
      if (error === null) return this.props.children;
      return h(ErrorMessage, {
        error: isSvcError(error) ? error : new RenderError(this.props.name, error),
        source: this.props.source,
        name: this.props.name,
      });
    }
  };
}

/** The component with its stylesheets applied while it is mounted. */
function Styled({
  component,
  props,
  sheets,
}: {
  component: React.ComponentType<object>;
  props: object;
  sheets: readonly ComponentStylesheet[];
}) {
  R.useInsertionEffect(() => adoptStylesheets(sheets), [sheets]);
  return h(component, props);
}

function Loaded({ source, name, props }: FrameProps) {
  const module = R.use(moduleOf(source, name) as Promise<ComponentModule>);
  if (process.env.NODE_ENV !== "production") {
    const schema = R.use(metadataOf(source, name) as Promise<{ props?: unknown } | null>)?.props as
      | Parameters<typeof validateProps>[0]
      | undefined;
    const issues = schema ? validateProps(schema, props) : [];
    if (issues.length > 0) throw new SchemaValidationError(name, issues);
  }
  const component = getComponentExport(module, name) as React.ComponentType<object>;
  // A plain error it throws is named (a `RenderError`) by the container's `Frame`.
  const content = h(Styled, { component, props, sheets: stylesheetsOf(module) });
  const S = providers.get(module);
  const queryClient = S === undefined ? undefined : queryClientOf(source);
  return S === undefined
    ? content
    : h(
        S.SvcProvider,
        { client: source.client, queryClient, errorFallback: errorFallbackOf(source) },
        content,
      );
}

/** Each source's fallback for `@svc/react`'s boundaries, made once (the provider keeps it). */
const errorFallbacks = new WeakMap<
  Source,
  (error: Error & { component?: string }) => React.ReactNode
>();

/**
 * What a component nested in one of the loader's (`ServerComponent`, `useComponent` under an
 * `SvcErrorBoundary` without a fallback) shows when it fails: what the loader shows for its
 * own — `@svc/react` on the page is the vendor build, production whatever the server's mode,
 * and the loader knows better (an API is not a static build; live reload means the overlay).
 */
function errorFallbackOf(source: Source) {
  let fallback = errorFallbacks.get(source);
  if (fallback === undefined) {
    fallback = (error) => h(ErrorMessage, { error, source, name: error.component ?? "unknown" });
    errorFallbacks.set(source, fallback);
  }
  return fallback;
}
