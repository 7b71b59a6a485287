/**
 * The client's view of the discovery manifests: the solver manifest
 * (`/.well-known/svc-solver.json`) and the aggregator manifest
 * (`/.well-known/svc-aggregator.json`), validated. Every endpoint the client
 * calls comes from them, never from string templates of its own.
 *
 * A manifest is decoded with the body schema the HTTP contract declares for it
 * (`getSolverManifest`, `aggregator_manifest` in `@svc/protocol/Api`), then
 * checked: every endpoint an http(s) URL, and the feed signer the pinned one
 * when a signer is pinned.
 *
 * @since 0.1.0
 */
import type { AggregatorManifest } from "@svc/protocol/schema/Aggregator"
import type { SolverDiscovery } from "@svc/protocol/schema/Discovery"
import * as Result from "effect/Result"
import { getAddress } from "viem"
import { DiscoveryInvalid } from "./Errors.ts"
import * as Operations from "./internal/declared.ts"
import { decoder } from "./internal/decoder.ts"
import { bodyNode } from "./internal/operations.ts"

/**
 * A validated solver manifest.
 *
 * @category models
 * @since 0.1.0
 */
export interface Solver {
  /** Where the manifest was read. */
  readonly url: string
  readonly manifest: SolverDiscovery
  /** The signer every feed and permit must recover to: the pinned signer, or the manifest's feedSigner (EIP-55). */
  readonly expectedSigner: string
}

/**
 * A validated aggregator manifest.
 *
 * @category models
 * @since 0.1.0
 */
export interface Aggregator {
  /** Where the manifest was read. */
  readonly url: string
  readonly manifest: AggregatorManifest
  /** The permit authority: the pinned signer, or the manifest's feedSigner (EIP-55). */
  readonly expectedSigner: string
}

const decodeSolver = /*#__PURE__*/ decoder<SolverDiscovery>(/*#__PURE__*/ bodyNode(Operations.getSolverManifest, 200))
const decodeAggregator = /*#__PURE__*/ decoder<AggregatorManifest>(
  /*#__PURE__*/ bodyNode(Operations.aggregator_manifest, 200)
)

const firstLines = (message: string) => message.split("\n").slice(0, 3).join(" ")

const checkUrls = (url: string, endpoints: Readonly<Record<string, string>>): string | undefined => {
  for (const [name, value] of Object.entries(endpoints)) {
    if (!/^https?:\/\//i.test(value)) return `endpoints.${name} is not an http(s) URL`
  }
  return url.length === 0 ? "no URL" : undefined
}

const expected = (
  url: string,
  declared: string,
  pinned: string | undefined
): Result.Result<string, DiscoveryInvalid> => {
  const declaredSigner = getAddress(declared.toLowerCase())
  if (pinned === undefined) return Result.succeed(declaredSigner)
  const pinnedSigner = getAddress(pinned.toLowerCase())
  return pinnedSigner === declaredSigner
    ? Result.succeed(pinnedSigner)
    : Result.fail(
      new DiscoveryInvalid({ url, reason: `feedSigner ${declaredSigner} is not the pinned signer ${pinnedSigner}` })
    )
}

/** Decodes a manifest body, checks its endpoint URLs and the signer it names (against a pinned one). */
const validate = <M extends { readonly endpoints: Readonly<Record<string, string>>; readonly feedSigner: string }>(
  decode: (body: unknown) => Result.Result<M, string>,
  url: string,
  body: unknown,
  pinnedSigner: string | undefined
): Result.Result<{ readonly url: string; readonly manifest: M; readonly expectedSigner: string }, DiscoveryInvalid> => {
  const decoded = decode(body)
  if (Result.isFailure(decoded)) {
    return Result.fail(new DiscoveryInvalid({ url, reason: firstLines(decoded.failure) }))
  }
  const manifest = decoded.success
  const bad = checkUrls(url, manifest.endpoints)
  if (bad !== undefined) return Result.fail(new DiscoveryInvalid({ url, reason: bad }))
  return Result.map(
    expected(url, manifest.feedSigner, pinnedSigner),
    (expectedSigner) => ({ url, manifest, expectedSigner })
  )
}

/**
 * Validates a solver manifest body.
 *
 * @category encoding
 * @since 0.1.0
 */
export const validateSolver = (
  url: string,
  body: unknown,
  pinnedSigner?: string
): Result.Result<Solver, DiscoveryInvalid> => validate(decodeSolver, url, body, pinnedSigner)

/**
 * Validates an aggregator manifest body.
 *
 * @category encoding
 * @since 0.1.0
 */
export const validateAggregator = (
  url: string,
  body: unknown,
  pinnedSigner?: string
): Result.Result<Aggregator, DiscoveryInvalid> => validate(decodeAggregator, url, body, pinnedSigner)

/**
 * Fills a `{name}` template of the manifest (`routeDetailTemplate`,
 * `permitStatusTemplate`) with a path-safe value.
 *
 * @category http
 * @since 0.1.0
 */
export const fillTemplate = (template: string, name: string, value: string): string =>
  template.replace(`{${name}}`, encodeURIComponent(value))

/**
 * The default manifest URLs of a base URL (`https://solver.example` gives
 * `https://solver.example/.well-known/svc-solver.json` and
 * `.../svc-aggregator.json`; a path prefix is kept).
 *
 * @category http
 * @since 0.1.0
 */
export const wellKnown = (base: string, document: "svc-solver.json" | "svc-aggregator.json"): string =>
  `${base.replace(/\/+$/, "")}/.well-known/${document}`
