/**
 * Pieces that the fingerprint, its scanner hints and the standards manifest all
 * repeat, derived once from the on-chain constants of `@svc/protocol/Onchain`:
 * the selector maps of the facade and the two standard modules, the ERC-165
 * interface ids of a module, and the `SourceFillV6` field lists by topic position.
 *
 * @since 0.1.0
 */
import { Onchain } from "@svc/protocol"
import type { DocumentContext } from "./Context.ts"

/**
 * The facade's selector maps (`selectors`, `selectorSignatures`).
 *
 * @category onchain
 * @since 0.1.0
 */
export const FACADE_SELECTORS = Onchain.selectorMaps(Onchain.FACADE_SIGNATURES)

/**
 * The ERC-7683 resolver module's selector maps.
 *
 * @category onchain
 * @since 0.1.0
 */
export const ERC7683_SELECTORS = Onchain.selectorMaps(Onchain.ERC7683_SIGNATURES)

/**
 * The OIF description module's selector maps.
 *
 * @category onchain
 * @since 0.1.0
 */
export const OIF_SELECTORS = Onchain.selectorMaps(Onchain.OIF_SIGNATURES)

/**
 * The ERC-165 interface ids a standard module supports: ERC-165 itself and the
 * V6 standard-module id.
 *
 * @category onchain
 * @since 0.1.0
 */
export const MODULE_INTERFACE_IDS: ReadonlyArray<string> = [
  Onchain.ERC165_INTERFACE_ID,
  Onchain.STANDARD_MODULE_INTERFACE_ID
]

/**
 * The indexed fields of `SourceFillV6` with their topic positions (1 to 3).
 *
 * @category onchain
 * @since 0.1.0
 */
export const SOURCE_FILL_INDEXED_FIELDS: ReadonlyArray<
  { readonly name: string; readonly type: string; readonly topicPosition: number }
> = Onchain.SOURCE_FILL_V6_FIELDS.filter((f) => f.indexed).map((f, i) => ({
  name: f.name,
  type: f.type,
  topicPosition: i + 1
}))

/**
 * Field name -> topic position of the indexed fields of `SourceFillV6`.
 *
 * @category onchain
 * @since 0.1.0
 */
export const SOURCE_FILL_TOPIC_POSITIONS: Readonly<Record<string, number>> = Object.fromEntries(
  SOURCE_FILL_INDEXED_FIELDS.map((f) => [f.name, f.topicPosition])
)

/**
 * The names of the non-indexed fields of `SourceFillV6`, in declaration order.
 *
 * @category onchain
 * @since 0.1.0
 */
export const SOURCE_FILL_NON_INDEXED: ReadonlyArray<string> = Onchain.SOURCE_FILL_V6_FIELDS.filter((f) => !f.indexed)
  .map((f) => f.name)

/**
 * How a `SourceFillV6` log leads to the solver: the router that emits it, the
 * facade and the facade's discovery URI.
 *
 * @category onchain
 * @since 0.1.0
 */
export const eventMapping = (context: DocumentContext) => ({
  router: context.addresses.router,
  facade: context.addresses.facade,
  discoveryURI: context.discoveryURI
})
