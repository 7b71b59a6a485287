/**
 * The plug-in `svc serve` loads (the package's default export): the Solana
 * connector. It reads no settings.
 *
 * @since 0.1.0
 */
import { Connector } from "@svc/core"
import { Effect } from "effect"
import * as SolanaConnector from "./SolanaConnector.ts"

/**
 * The package name the plug-in registers under.
 *
 * @category constants
 * @since 0.1.0
 */
export const NAME = "@svc/connector-solana"

/**
 * The Solana connector plug-in.
 *
 * @category running
 * @since 0.1.0
 */
export const plugin: Connector.Plugin = Connector.plugin(NAME, () => Effect.sync(SolanaConnector.make))

export default plugin
