/**
 * svc conformance: a harness that tells an operator, precisely and
 * reproducibly, where a deployment departs from the V6 interface. It reaches a
 * deployment only over HTTP; checks are a registry of named, single-purpose
 * verifications; a runner emits events that reporters consume.
 *
 * @since 0.1.0
 */
/** @since 0.1.0 */
export * as Chain from "./Chain.ts"
/** @since 0.1.0 */
export * as Check from "./Check.ts"
/** @since 0.1.0 */
export * as Cli from "./Cli.ts"
/** @since 0.1.0 */
export * as Curl from "./Curl.ts"
/** @since 0.1.0 */
export * as Exchange from "./Exchange.ts"
/** @since 0.1.0 */
export * as Html from "./Html.ts"
/** @since 0.1.0 */
export * as Independent from "./Independent.ts"
/** @since 0.1.0 */
export * as Shared from "./Shared.ts"
/** @since 0.1.0 */
export * as JsonText from "./JsonText.ts"
/** @since 0.1.0 */
export * as Observer from "./Observer.ts"
/** @since 0.1.0 */
export * as Operations from "./Operations.ts"
/** @since 0.1.0 */
export * as Registry from "./Registry.ts"
/** @since 0.1.0 */
export * as Report from "./Report.ts"
/** @since 0.1.0 */
export * as Reporters from "./Reporters.ts"
/** @since 0.1.0 */
export * as RunOptions from "./RunOptions.ts"
/** @since 0.1.0 */
export * as Runner from "./Runner.ts"
/** @since 0.1.0 */
export * as SelfCheck from "./SelfCheck.ts"
/** @since 0.1.0 */
export * as Sse from "./Sse.ts"
/** @since 0.1.0 */
export * as Transport from "./Transport.ts"
