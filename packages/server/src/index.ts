/**
 * svc server: the whole HTTP contract of `@svc/protocol` over the `@svc/core`
 * engine, on `@effect/platform-node`.
 *
 * @since 0.1.0
 */
/** @since 0.1.0 */
export * as App from "./App.ts"
/** @since 0.1.0 */
export * as Broadcaster from "./Broadcaster.ts"
/** @since 0.1.0 */
export * as ClientAddress from "./ClientAddress.ts"
/** @since 0.1.0 */
export * as Connections from "./Connections.ts"
/** @since 0.1.0 */
export * as Documents from "./documents/index.ts"
/** @since 0.1.0 */
export * as FastPath from "./FastPath.ts"
/** @since 0.1.0 */
export * as Server from "./Server.ts"
/** @since 0.1.0 */
export * as ServerConfig from "./ServerConfig.ts"
