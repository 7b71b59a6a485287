/**
 * One plug-in model for every replaceable part of a deployment: a package (or a
 * local module) whose default export declares its **kind**, its **name**, its
 * **settings** (an Effect `Config`, read from the server's environment and
 * `SVC_CONFIG` file, so that a bad value stops the server with one line naming
 * the key) and its **layer** (built from those settings).
 *
 * `svc serve` loads them by configuration: `SVC_CONNECTORS` (connectors, see
 * `Connector.plugin`), `SVC_STORE`, `SVC_PRICING` and `SVC_SIGNER_PLUGIN`. Each
 * takes a built-in name (the built-in parts are plug-ins too) or a package name
 * or path (anything with a `/` or starting with `.` or `@`).
 *
 * ```ts
 * import { Plugin, Pricing } from "@svc/core"
 * import { Config } from "effect"
 *
 * export default Plugin.make({
 *   kind: "pricing",
 *   name: "@acme/svc-pricing-flat",
 *   settings: Config.Int("ACME_FEE_BPS").pipe(Config.withDefault(0)),
 *   layer: (feeBps) => Pricing.layerStatic({ modelVersion: `acme-flat-${feeBps}` })
 * })
 * ```
 *
 * @since 0.1.0
 */
import { type Config, Data, type Layer } from "effect"
import type { Catalog } from "./Catalog.ts"
import type { ConnectorRegistry, PluginContext } from "./Connector.ts"
import * as Connector from "./Connector.ts"
import type { Coordination } from "./Coordination.ts"
import type { Market } from "./Market.ts"
import type { Pricing } from "./Pricing.ts"
import type { Signer } from "./Signer.ts"
import type { Store } from "./Store.ts"

/**
 * What each kind of plug-in provides (`provides`) and may use from the rest of
 * the deployment (`uses`).
 *
 * - `store`: the `Store`; it may also say how replicas sharing it coordinate
 *   ({@link StorePlugin.coordination}), else one process leads.
 * - `coordination`: which replica publishes and settles.
 * - `pricing`: the feed's terms and the permits' fresh prices.
 * - `market`: price feeds and gas prices.
 * - `signer`: the feed and permit authority.
 *
 * @category models
 * @since 0.1.0
 */
export interface Kinds {
  readonly store: { readonly provides: Store; readonly uses: never }
  readonly coordination: { readonly provides: Coordination; readonly uses: never }
  readonly pricing: { readonly provides: Pricing; readonly uses: Catalog | Market | Store | Signer }
  readonly market: { readonly provides: Market; readonly uses: Catalog | ConnectorRegistry }
  readonly signer: { readonly provides: Signer; readonly uses: never }
}

/**
 * A kind of plug-in that provides a layer (connectors register instead: see
 * `Connector.plugin`).
 *
 * @category models
 * @since 0.1.0
 */
export type LayerKind = keyof Kinds

/**
 * Every kind of plug-in, connectors included.
 *
 * @category models
 * @since 0.1.0
 */
export type Kind = LayerKind | "connector"

/**
 * The kinds, in the order the documentation lists them.
 *
 * @category constants
 * @since 0.1.0
 */
export const KINDS: ReadonlyArray<Kind> = ["connector", "store", "coordination", "pricing", "market", "signer"]

/**
 * What a plug-in is told about the deployment: the catalog's networks (as
 * connector plug-ins are).
 *
 * @category models
 * @since 0.1.0
 */
export type Context = PluginContext

/**
 * A plug-in cannot build its part (a setting is wrong, a file cannot be read).
 * The message names the setting; the server prints it as one start-up line and
 * it never carries secret values.
 *
 * @category errors
 * @since 0.1.0
 */
export class PluginError extends Data.TaggedError("PluginError")<{ readonly message: string }> {}

/**
 * A plug-in of a kind that provides a layer: the default export of its module.
 *
 * @category models
 * @since 0.1.0
 */
export interface Plugin<K extends LayerKind = LayerKind, S = unknown, E = unknown> {
  readonly _tag: "SvcPlugin"
  readonly kind: K
  /** The package name (or a built-in name). */
  readonly name: string
  /** The settings it reads, as an Effect `Config` (key names as the environment spells them). */
  readonly settings: Config.Config<S>
  /** The part, built from the settings. */
  layer(settings: S, context: Context): Layer.Layer<Kinds[K]["provides"], E, Kinds[K]["uses"]>
}

/**
 * A store plug-in; `coordination`, when given, is how the replicas sharing the
 * store elect the one that publishes and settles (without it one process leads).
 *
 * @category models
 * @since 0.1.0
 */
export interface StorePlugin<S = unknown, E = unknown> extends Plugin<"store", S, E> {
  coordination?(settings: S, context: Context): Layer.Layer<Coordination, E>
}

/**
 * Declares a plug-in (the default export of a plug-in package).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <K extends LayerKind, S, E = never>(declaration: {
  readonly kind: K
  readonly name: string
  readonly settings: Config.Config<S>
  readonly layer: (settings: S, context: Context) => Layer.Layer<Kinds[K]["provides"], E, Kinds[K]["uses"]>
  readonly coordination?:
    | (K extends "store" ? (settings: S, context: Context) => Layer.Layer<Coordination, E> : never)
    | undefined
}): K extends "store" ? StorePlugin<S, E> : Plugin<K, S, E> => {
  const plugin: Plugin<K, S, E> & { coordination?: unknown } = {
    _tag: "SvcPlugin",
    kind: declaration.kind,
    name: declaration.name,
    settings: declaration.settings,
    layer: declaration.layer
  }
  if (declaration.coordination !== undefined) plugin.coordination = declaration.coordination
  return plugin as K extends "store" ? StorePlugin<S, E> : Plugin<K, S, E>
}

/**
 * Whether a value (a module's default export) is a plug-in of a kind; for
 * `connector`, a `Connector.plugin`.
 *
 * @category validation
 * @since 0.1.0
 */
export const isPlugin: {
  (u: unknown, kind: "connector"): u is Connector.Plugin
  <K extends LayerKind>(u: unknown, kind: K): u is K extends "store" ? StorePlugin : Plugin<K>
  (u: unknown): u is Plugin
} = (u: unknown, kind?: Kind): u is never => {
  if (kind === "connector") return Connector.isPlugin(u)
  if (typeof u !== "object" || u === null) return false
  const p = u as Partial<Record<keyof Plugin, unknown>>
  return p._tag === "SvcPlugin" && typeof p.kind === "string" && typeof p.name === "string" &&
    typeof p.layer === "function" && typeof p.settings === "object" && p.settings !== null &&
    (kind === undefined || p.kind === kind)
}

/**
 * What a value that is not a plug-in of a kind is, for the one-line start-up
 * error: `a pricing plug-in (kind "store")`, `not a plug-in`.
 *
 * @category validation
 * @since 0.1.0
 */
export const describeValue = (u: unknown): string => {
  if (Connector.isPlugin(u)) return `a connector plug-in (${u.name})`
  if (isPlugin(u)) return `a ${u.kind} plug-in (${u.name})`
  if (u === undefined) return "missing (the module has no default export)"
  return "not a plug-in"
}
