/**
 * Every operation the client performs, one export each (so that a bundle keeps
 * only the operations its code reaches), each the contract's declaration
 * checked against the error family the client expects. Import as a namespace:
 * `import * as Operations from "./declared.ts"`. Internal.
 *
 * @since 0.1.0
 */
import * as Contract from "./contract.ts"
import { operation } from "./operations.ts"

/**
 * `GET` the solver manifest.
 *
 * @category http
 * @since 0.1.0
 */
export const getSolverManifest = /*#__PURE__*/ operation(Contract.getSolverManifest, "solver")

/**
 * `GET` the signed feed (revalidated: 304).
 *
 * @category http
 * @since 0.1.0
 */
export const getSolverFeed = /*#__PURE__*/ operation(Contract.getSolverFeed, "solver")

/**
 * `GET` the feed's event stream.
 *
 * @category http
 * @since 0.1.0
 */
export const streamSolverFeed = /*#__PURE__*/ operation(Contract.streamSolverFeed, "solver")

/**
 * `GET` a route's detail.
 *
 * @category http
 * @since 0.1.0
 */
export const getRouteDetail = /*#__PURE__*/ operation(Contract.getRouteDetail, "solver")

/**
 * `POST` the server's permit request message.
 *
 * @category http
 * @since 0.1.0
 */
export const buildPermitRequestMessage = /*#__PURE__*/ operation(Contract.buildPermitRequestMessage, "solver")

/**
 * `POST` a permit request (201 created, 200 replayed).
 *
 * @category http
 * @since 0.1.0
 */
export const createExecutionPermit = /*#__PURE__*/ operation(Contract.createExecutionPermit, "solver")

/**
 * `GET` a permit's envelope.
 *
 * @category http
 * @since 0.1.0
 */
export const getExecutionPermit = /*#__PURE__*/ operation(Contract.getExecutionPermit, "solver")

/**
 * `GET` the aggregator manifest.
 *
 * @category http
 * @since 0.1.0
 */
export const aggregator_manifest = /*#__PURE__*/ operation(Contract.aggregator_manifest, "aggregator")

/**
 * `POST /v1/quote`.
 *
 * @category http
 * @since 0.1.0
 */
export const aggregator_quote = /*#__PURE__*/ operation(Contract.aggregator_quote, "aggregator")

/**
 * `POST /v1/build` (either stage).
 *
 * @category http
 * @since 0.1.0
 */
export const aggregator_build = /*#__PURE__*/ operation(Contract.aggregator_build, "aggregator")

/**
 * `GET /v1/status`.
 *
 * @category http
 * @since 0.1.0
 */
export const aggregator_status = /*#__PURE__*/ operation(Contract.aggregator_status, "aggregator")

/**
 * `GET /v1/chains` (revalidated: 304).
 *
 * @category http
 * @since 0.1.0
 */
export const aggregator_chains = /*#__PURE__*/ operation(Contract.aggregator_chains, "aggregator")

/**
 * `GET /v1/tokens` (revalidated: 304).
 *
 * @category http
 * @since 0.1.0
 */
export const aggregator_tokens = /*#__PURE__*/ operation(Contract.aggregator_tokens, "aggregator")

/**
 * `GET /v1/health`.
 *
 * @category http
 * @since 0.1.0
 */
export const aggregator_health = /*#__PURE__*/ operation(Contract.aggregator_health, "aggregator")
