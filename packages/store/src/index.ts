/**
 * svc store: the solver's storage contract (`Store` of `@svc/core`) on SQLite
 * and PostgreSQL. The shared contract suite is `@svc/store/testing/StoreContract`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as PgCoordination from "./PgCoordination.ts"
/** @since 0.1.0 */
export * as PgStore from "./PgStore.ts"
/** @since 0.1.0 */
export * as SqliteStore from "./SqliteStore.ts"
/** @since 0.1.0 */
export * as StoreConfig from "./StoreConfig.ts"
/** @since 0.1.0 */
export * as StoreTimeouts from "./StoreTimeouts.ts"
/** @since 0.1.0 */
export { layerFromUrl } from "./StoreConfig.ts"
