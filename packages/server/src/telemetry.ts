/**
 * OpenTelemetry, through `@opentelemetry/api` only: svc makes spans and metrics, and they go
 * wherever the app's SDK sends them — nowhere (no cost beyond a no-op call) until the app
 * registers one. The names and attributes are listed in docs/OBSERVABILITY.md.
 */
import {
  type Attributes,
  type Counter,
  context,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type ObservableGauge,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

const SCOPE = "@svc/server";

/** The tracer: a proxy that follows whatever provider the app registers, now or later. */
const tracer = trace.getTracer(SCOPE);

/** svc's metric instruments, made from the app's meter provider (see {@link instruments}). */
export interface Instruments {
  /** How long an island took to render, in ms (`svc.component`, `svc.outcome`). */
  renderDuration: Histogram;
  /** Bundles built (`svc.component`, `svc.outcome`). */
  bundleBuilds: Counter;
  /** How long a bundle took to build, in ms (`svc.component`). */
  bundleDuration: Histogram;
  /** Bundle requests answered from the cache or by a build (`svc.cache`: `hit` | `miss`). */
  bundleRequests: Counter;
  /** Error answers, by kind (`error.type`: `RenderTimeout`, `BundleError`, …). */
  errors: Counter;
  /** Islands waiting for a render worker. */
  renderQueue: ObservableGauge;
}

let made: { provider: MeterProvider; instruments: Instruments } | undefined;

/** What the queue gauge reads, each time it is collected: every live render pool. */
const queues = new Set<WeakRef<{ readonly queued: number }>>();

/**
 * svc's instruments, made anew when the app registers a meter provider (the metrics API has
 * no proxy: a meter got before the SDK was registered would stay a no-op).
 */
export function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (made?.provider !== provider)
    made = { provider, instruments: create(provider.getMeter(SCOPE)) };
  return made.instruments;
}

function create(meter: Meter): Instruments {
  const renderQueue = meter.createObservableGauge("svc.render.queue", {
    description: "Islands waiting for a render worker",
    unit: "{island}",
  });
  renderQueue.addCallback((result) => {
    let waiting = 0;
    for (const ref of queues) {
      const queue = ref.deref();
      if (queue === undefined) queues.delete(ref);
      else waiting += queue.queued;
    }
    result.observe(waiting);
  });
  return {
    renderDuration: meter.createHistogram("svc.render.duration", {
      description: "How long an island took to render on the server",
      unit: "ms",
    }),
    bundleBuilds: meter.createCounter("svc.bundle.builds", {
      description: "Bundles built by esbuild",
      unit: "{bundle}",
    }),
    bundleDuration: meter.createHistogram("svc.bundle.duration", {
      description: "How long a bundle took to build",
      unit: "ms",
    }),
    bundleRequests: meter.createCounter("svc.bundle.requests", {
      description: "Bundle requests, answered from the cache (hit) or by a build (miss)",
      unit: "{request}",
    }),
    errors: meter.createCounter("svc.errors", {
      description: "Error answers, by kind",
      unit: "{error}",
    }),
    renderQueue,
  };
}

/**
 * Counts `queue.queued` into the `svc.render.queue` gauge for as long as `queue` lives (held
 * weakly: a handler set that is dropped takes its pool with it).
 */
export function observeQueue(queue: { readonly queued: number }): void {
  queues.add(new WeakRef(queue));
}

/**
 * A span for `name` around `work` (its result, or its promise's), ended when `work` is done:
 * ERROR with the error's kind when it throws or rejects. `work` runs with the span active, so
 * the spans it starts are children of it.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => T,
  kind: SpanKind = SpanKind.INTERNAL,
): T {
  const span = tracer.startSpan(name, { kind, attributes });
  let result: T;
  try {
    result = context.with(trace.setSpan(context.active(), span), work, undefined, span);
  } catch (error) {
    failed(span, error);
    span.end();
    throw error;
  }
  if (result instanceof Promise) {
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failed(span, error);
        span.end();
        throw error;
      },
    ) as T;
  }
  span.end();
  return result;
}

/** Starts a span the caller ends (a request, whose answer the transport writes later). */
export function startSpan(name: string, attributes: Attributes, kind: SpanKind): Span {
  return tracer.startSpan(name, { kind, attributes });
}

/** Runs `work` with `span` active. */
export function withSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work);
}

/** Whether a span is active here (svc's request span is then a child, not a root). */
export function inTrace(): boolean {
  return trace.getActiveSpan() !== undefined;
}

/** Marks `span` failed with `error`: its kind (svc's errors) as `error.type`. */
export function failed(span: Span, error: unknown): void {
  const kind = errorKindOf(error);
  span.setAttribute("error.type", kind);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: (error as Error)?.message?.split("\n")[0],
  });
}

/** An error's stable kind (`RenderTimeout`), or its class name, or `Error`. */
export function errorKindOf(error: unknown): string {
  const kind = (error as { kind?: unknown })?.kind;
  if (typeof kind === "string") return kind;
  const name = (error as { name?: unknown })?.name;
  return typeof name === "string" ? name : "Error";
}

export { type Span, SpanKind, SpanStatusCode };
