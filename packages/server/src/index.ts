/**
 * svc server.
 *
 * @since 0.1.0
 */
/** @since 0.1.0 */
export * as App from "./App.ts"
/** @since 0.1.0 */
export * as Discovery from "./Discovery.ts"
/** @since 0.1.0 */
export * as OpenApi from "./OpenApi.ts"
/** @since 0.1.0 */
export * as Server from "./Server.ts"
/** @since 0.1.0 */
export * as ServerConfig from "./ServerConfig.ts"
