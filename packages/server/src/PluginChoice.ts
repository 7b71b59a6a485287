/**
 * The plug-in settings of the server (`SVC_STORE`, `SVC_COORDINATION`,
 * `SVC_PRICING`, `SVC_MARKET`, `SVC_SIGNER_PLUGIN`): each takes a built-in name or a package name or path
 * (anything with a `/` or starting with `.` or `@`).
 *
 * @since 0.1.0
 */
import type { Plugin } from "@svc/core"

/**
 * A setting that chooses a plug-in.
 *
 * @category models
 * @since 0.1.0
 */
export type PluginKey = "SVC_STORE" | "SVC_COORDINATION" | "SVC_PRICING" | "SVC_MARKET" | "SVC_SIGNER_PLUGIN"

/**
 * The kind of plug-in each setting chooses, and its built-in names.
 *
 * @category constants
 * @since 0.1.0
 */
export const PLUGIN_KEYS: {
  readonly [K in PluginKey]: { readonly kind: Plugin.LayerKind; readonly builtins: ReadonlyArray<string> }
} = {
  SVC_STORE: { kind: "store", builtins: ["sqlite", "postgres"] },
  SVC_COORDINATION: { kind: "coordination", builtins: ["store", "single", "postgres"] },
  SVC_PRICING: { kind: "pricing", builtins: ["static", "oracle"] },
  SVC_MARKET: { kind: "market", builtins: ["catalog"] },
  SVC_SIGNER_PLUGIN: { kind: "signer", builtins: ["key", "keystore"] }
}

/**
 * Whether a value names a package or a path rather than a built-in: it holds a
 * `/` or starts with `.` or `@`.
 *
 * @category running
 * @since 0.1.0
 */
export const isSpecifier = (value: string): boolean =>
  value.includes("/") || value.startsWith(".") || value.startsWith("@")

/**
 * What is wrong with a value of a plug-in setting, as one line naming the key,
 * or undefined when it is a built-in name or a package name or path.
 *
 * @category running
 * @since 0.1.0
 */
export const problem = (key: PluginKey, value: string): string | undefined => {
  const { builtins, kind } = PLUGIN_KEYS[key]
  if (builtins.includes(value) || isSpecifier(value)) return undefined
  return `${key}: unknown ${kind} ${JSON.stringify(value)}: give ${
    builtins.join(" or ")
  }, or a ${kind} plug-in's package name or path (with a / or starting with . or @)`
}

/**
 * What is wrong with the plug-in settings of a configuration, as one line
 * naming the key, or undefined: each value a built-in name or a package name
 * or path, and the built-ins consistent with the keys beside them (the store
 * and coordination `postgres` need `DATABASE_URL`, the store `sqlite` refuses
 * it; `keystore` needs `SVC_SIGNER_KEYSTORE`, `key` refuses it).
 *
 * @category validation
 * @since 0.1.0
 */
export const check = (settings: {
  readonly store?: string | undefined
  readonly coordination?: string | undefined
  readonly pricing?: string | undefined
  readonly market?: string | undefined
  readonly signerPlugin?: string | undefined
  /** Whether DATABASE_URL is set. */
  readonly databaseUrl: boolean
  /** Whether SVC_SIGNER_KEYSTORE is set. */
  readonly signerKeystore: boolean
}): string | undefined => {
  for (
    const [key, value] of [
      ["SVC_STORE", settings.store],
      ["SVC_COORDINATION", settings.coordination],
      ["SVC_PRICING", settings.pricing],
      ["SVC_MARKET", settings.market],
      ["SVC_SIGNER_PLUGIN", settings.signerPlugin]
    ] as const
  ) {
    const found = value === undefined ? undefined : problem(key, value)
    if (found !== undefined) return found
  }
  if (settings.store === "postgres" && !settings.databaseUrl) {
    return "SVC_STORE: postgres needs DATABASE_URL (postgres://user:password@host/db)"
  }
  if (settings.store === "sqlite" && settings.databaseUrl) {
    return "SVC_STORE: sqlite, but DATABASE_URL is set (it selects PostgreSQL): unset one of them"
  }
  if (settings.coordination === "postgres" && !settings.databaseUrl) {
    return "SVC_COORDINATION: postgres needs DATABASE_URL (the PostgreSQL database whose lease the replicas share)"
  }
  if (settings.signerPlugin === "keystore" && !settings.signerKeystore) {
    return "SVC_SIGNER_KEYSTORE: required with SVC_SIGNER_PLUGIN=keystore (the authority's keystore file, svc keys new)"
  }
  if (settings.signerPlugin === "key" && settings.signerKeystore) {
    return "SVC_SIGNER_PLUGIN: key, but SVC_SIGNER_KEYSTORE is set: use keystore, or unset SVC_SIGNER_KEYSTORE"
  }
  return undefined
}
