/**
 * The props of every component, by name: empty here, filled in by the declaration file that
 * `svc types` writes from the components' `schema.json` files (`svc-env.d.ts`):
 *
 * ```ts
 * declare module "@svc/protocol" {
 *   interface SvcComponents {
 *     counter: CounterProps;
 *     "app:ui.button": AppUiButtonProps;
 *   }
 * }
 * ```
 *
 * Declared here, in the one package both sides depend on, so that the browser's
 * `useComponent` and `ServerComponent` (`@svc/react`), the loader's `window.svc` and the
 * server's render helpers (`renderWidget`) all read the same declarations. While it is empty,
 * every name is accepted and props are `Record<string, unknown>`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface (not a type) so that declaration files can merge into it.
export interface SvcComponents {}

/** The declared component names; `string` while none are declared. */
export type SvcComponentName = [keyof SvcComponents] extends [never]
  ? string
  : keyof SvcComponents & string;

/** The props of component `N`: its declared props, else `Record<string, unknown>`. */
export type SvcProps<N extends string> = N extends keyof SvcComponents
  ? SvcComponents[N]
  : Record<string, unknown>;

/**
 * The type of a `name` parameter that checks its argument: a literal name must be declared
 * (else the error lists the declared names); a value typed `string` — a name known only at
 * run time — is let through, as is every name while none are declared.
 */
export type KnownName<N extends string> = string extends N
  ? N
  : [keyof SvcComponents] extends [never]
    ? N
    : N extends keyof SvcComponents
      ? N
      : SvcComponentName;

/**
 * The props a render helper takes for `name: KnownName<N>` with an optional explicit props
 * type `P` (its escape hatch): `P` when given, else the declared props of `N`. `P` is never
 * inferred — from the props passed, it would accept any props.
 */
export type PropsFor<P, N extends string> = [NoInfer<P>] extends [never] ? SvcProps<N> : NoInfer<P>;

/**
 * Parameters `props, ...rest` for a component whose props are `P`: `props` may be left out
 * only when `P` requires nothing.
 */
// biome-ignore lint/complexity/noBannedTypes: `{}` is what an omitted props argument amounts to.
export type PropsParameters<P, Rest extends unknown[] = []> = {} extends P
  ? [props?: P, ...rest: Rest]
  : [props: P, ...rest: Rest];
