/**
 * svc command-line tool.
 *
 * @since 0.1.0
 */
/** @since 0.1.0 */
export * as Cli from "./Cli.ts"
/** @since 0.1.0 */
export * as Protocol from "./Protocol.ts"
