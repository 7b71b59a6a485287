/**
 * Builds docs/errors.md from the error tables of the code (Errors.SOLVER_ERRORS and
 * AGGREGATOR_ERRORS) and the reason codes below. `npm run docs:errors` rewrites the
 * file; a test fails when the committed file differs from what this builds.
 */
import { writeFileSync } from "node:fs"
import { Errors } from "../packages/core/src/index.ts"
import { AGGREGATOR_ERRORS } from "../packages/protocol/src/index.ts"

/** Reason codes per error code: what refines each error. `<SIDE>` is PAYER or RECIPIENT. */
const REASONS: ReadonlyArray<readonly [code: string, reasons: ReadonlyArray<readonly [string, string]>]> = [
  ["INVALID_REQUEST", [
    ["`<FIELD>_INVALID`", "the field (SCREAMING_SNAKE of its name, e.g. `QUOTE_ID_INVALID`) fails its pattern, type or range"],
    ["`<FIELD>_MISSING`", "a required field is absent"],
    ["`UNKNOWN_FIELD`", "a property the schema does not list (bodies are never stripped); `diagnostics.issues` names it"],
    ["`<SIDE>_IDENTITY_MISSING`, `<SIDE>_IDENTITY_AMBIGUOUS`, `<SIDE>_ACCOUNT_ID_MISSING`, `<SIDE>_LOCATOR_MISSING`", "the identity rules of PermitRequest"],
    ["`BODY_NOT_JSON`, `BODY_UNREADABLE`, `BODY_INVALID`", "the body is not JSON, cannot be read, or is not an object"],
    ["`UNKNOWN_QUERY_PARAMETER`, `REPEATED_QUERY_PARAMETER`", "a query parameter the operation does not take, or one given twice"],
    ["`SOURCE_CHAIN_ID_INVALID`, `SOURCE_NETWORK_ID_INVALID`", "a feed filter that does not match its pattern"],
    ["`IDEMPOTENCY_KEY_HEADER_INVALID`", "the Idempotency-Key header does not match `^[a-zA-Z0-9._:-]{8,128}$`"]
  ]],
  ["IDEMPOTENCY_KEY_MISMATCH", [["`IDEMPOTENCY_KEY_HEADER_MISMATCH`", "header and body keys differ"]]],
  ["UNSUPPORTED_STANDARD", [["`STANDARD_NOT_SUPPORTED`", "a well-formed standard other than DIRECT or ERC-7683"]]],
  ["AMOUNT_INVALID", [["`AMOUNT_ZERO`, `AMOUNT_TOO_LARGE`", "requestedAmountInRaw is 0, or not below 2^128"]]],
  ["AMOUNT_TOO_LOW", [
    ["`BELOW_MINIMUM_FILL`", "below the route's minimumFillInRaw (`diagnostics.minimumFillInRaw`)"],
    ["`PRICES_TO_ZERO`", "the fresh price of the amount is 0"]
  ]],
  ["IDENTITY_INVALID", [
    ["`<SIDE>_CHECKSUM_INVALID`", "a mixed-case address with a wrong EIP-55 checksum"],
    ["`<SIDE>_WRONG_NETWORK`", "an EVM address for a side whose network is not EVM (give the account form)"],
    ["`<SIDE>_NO_CONNECTOR`, `<SIDE>_NOT_SUPPORTED`, `<SIDE>_NETWORK_UNKNOWN`", "no connector serves the side's network, or it does not serve this side"],
    ["`<SIDE>_LOCATOR_INVALID`, `<SIDE>_LOCATOR_NOT_CANONICAL`", "the locator does not parse, or is not in canonical form (`diagnostics.canonicalLocator`)"],
    ["`<SIDE>_ACCOUNT_ID_MISMATCH`", "the account id is not the one of the locator on the route's network"]
  ]],
  ["SIGNATURE_INVALID", [
    ["`SIGNER_MISMATCH`", "the proof is valid but not by the payer"],
    ["`SIGNATURE_MALFORMED`, `SIGNATURE_BAD_V`, `SIGNATURE_OUT_OF_RANGE`, `SIGNATURE_HIGH_S`, `SIGNATURE_UNRECOVERABLE`", "an EVM signature that is not 65 bytes, has v outside 27/28 (0/1), r or s out of range, a high s (EIP-2), or no recoverable key"],
    ["`PROOF_MALFORMED`, `PROOF_INVALID`", "a connector proof (ed25519 for Solana, ERC-1271 / ERC-6492 for smart accounts) that does not parse or does not verify"],
    ["`RPC_NOT_CONFIGURED`", "a smart-contract signature on a network without an RPC URL (`SVC_RPC_URLS`)"],
    ["`NETWORK_MISMATCH`", "a proof for a locator of another network family"],
    ["`PAYER_NETWORK_UNRESOLVED`", "the stored permit's payer network has no connector any more (replays)"]
  ]],
  ["NOT_FOUND", [["`PATH_NOT_FOUND`", "no such path"]]],
  ["ROUTE_NOT_FOUND", [["`ROUTE_NOT_FOUND`", "no route with this routeId in the active feed; a malformed routeId answers the same"]]],
  ["PERMIT_NOT_FOUND", [["`PERMIT_NOT_FOUND`", "no permit with this fillId; a malformed fillId answers the same"]]],
  ["METHOD_NOT_ALLOWED", [["`ALLOWED_<METHODS>`", "the methods of the path, also in the `Allow` header"]]],
  ["IDEMPOTENCY_CONFLICT", [["`IDEMPOTENCY_KEY_REUSED`", "the key (per payer) was used for another request; use a new key for a new intent"]]],
  ["IDEMPOTENCY_IN_PROGRESS", [["`IDEMPOTENCY_KEY_IN_FLIGHT`", "the first request with this key did not finish within 5 s; retry the identical request"]]],
  ["INSUFFICIENT_CAPACITY", [
    ["`ABOVE_MAX_AVAILABLE`", "above the route's maxAvailableInRaw (`diagnostics.maxAvailableInRaw`)"],
    ["`INVENTORY_SHORT`, `NO_INVENTORY`", "the destination inventory cannot reserve the amountOut now"]
  ]],
  ["QUOTE_CHANGED", [["`PRICE_MOVED`", "the fresh price no longer covers the bound amountOut (aggregator builds)"]]],
  ["QUOTE_NOT_OPEN", [
    ["`QUOTE_UNKNOWN`", "no route of the active signed feed has this quoteId (terms changed, or never published)"],
    ["`QUOTE_EXPIRED`, `QUOTE_NOT_YET_VALID`", "now is outside the route's validAfter..validUntil"],
    ["`ROUTE_PAUSED`, `ROUTE_TEMP_UNAVAILABLE`, `ROUTE_DAILY_CLOSED`", "the route's executionStatus or dailyStatus is not OPEN"],
    ["`ROUTE_CAPACITY_EXHAUSTED`", "maxAvailableInRaw is below minimumFillInRaw"],
    ["`PERMIT_UNAVAILABLE`, `PAYOUT_UNSUPPORTED`, `PAYER_NO_CONNECTOR`, `PAYER_NOT_SUPPORTED`, `RECIPIENT_NO_CONNECTOR`, `RECIPIENT_NOT_SUPPORTED`, `NO_DIRECT_EXECUTION`", "the route does not issue permits (and why)"],
    ["`ROUTE_NOT_OPEN`", "not open for another reason"]
  ]],
  ["BODY_TOO_LARGE", [["`BODY_TOO_LARGE`", "above 32,768 bytes; answered before parsing"]]],
  ["RATE_LIMITED", [["`PERMIT_RATE_LIMITED`", "with `Retry-After`, `RateLimit` and `RateLimit-Policy`"]]],
  ["INTERNAL_ERROR", [["`INTERNAL_ERROR`", "a failure inside svc (logged with the request id); also a store failure on permit status"]]],
  ["PUBLICATION_CLOSED", [["`PUBLICATION_CLOSED`, `SHUTTING_DOWN`", "the operator paused publication, or the server is stopping"]]],
  ["AUTHORITY_UNAVAILABLE", [
    ["`PUBLICATION_UNAVAILABLE`", "no valid publication (not published yet, or the last one expired)"],
    ["`STORE_UNAVAILABLE`, `SIGNER_UNAVAILABLE`, `PRICING_UNAVAILABLE`", "a dependency is down; `Retry-After` is set"],
    ["`RPC_UNAVAILABLE`, `RPC_TIMEOUT`", "the RPC a connector needs for a smart-account proof"],
    ["`TOO_MANY_SUBSCRIBERS`", "the event stream is at its subscriber cap"]
  ]]
]

/** The text of docs/errors.md. */
export const buildErrorsDoc = (): string => {
  const solverRows = Object.entries(Errors.SOLVER_ERRORS)
    .map(([code, { meaning, status }]) => `| ${status} | \`${code}\` | ${meaning} |`)
  const reasonRows = REASONS.flatMap(([code, reasons]) => reasons.map(([reason, meaning]) => `| \`${code}\` | ${reason} | ${meaning} |`))
  const aggregatorRows = Object.entries(AGGREGATOR_ERRORS)
    .map(([code, e]) => `| ${e.status} | \`${code}\` | \`${e.action}\` | ${e.retryable ? "yes" : "no"} | ${e.meaning} |`)
  return `# Errors

<!-- generated by scripts/errors-doc.ts from the code's error tables: edit the script, then run npm run docs:errors -->

Clients handle codes, never message text. A solver error (under \`/api/v6\` and the discovery documents) is

\`\`\`json
{ "ok": false, "error": "QUOTE_NOT_OPEN", "reasonCodes": ["QUOTE_EXPIRED"], "diagnostics": { "detail": "..." } }
\`\`\`

\`reasonCodes\` refine \`error\`; \`diagnostics\` is free-form help for people (schema issues, limits) and may
change. Errors carry \`Cache-Control: no-store\`; 429 and 503 carry \`Retry-After\`.

## Solver error codes

| Status | error | Meaning |
| --- | --- | --- |
${solverRows.join("\n")}

## Reason codes

| error | reasonCodes | Meaning |
| --- | --- | --- |
${reasonRows.join("\n")}

## Order of checks of permit creation

The first failing check answers (decisions.md; docs/protocol.md has the details):

1. 413 \`BODY_TOO_LARGE\` (before parsing)
2. 400 \`INVALID_REQUEST\` (schema, unknown fields)
3. 400 \`IDEMPOTENCY_KEY_MISMATCH\`
4. idempotency: a completed request with the same key and the same normalised request replays 200 (even after
   expiry or under rate limiting; its signature must still verify); another request with the key: 409
   \`IDEMPOTENCY_CONFLICT\`; still in flight after 5 s: 409 \`IDEMPOTENCY_IN_PROGRESS\`
5. 429 \`RATE_LIMITED\`
6. 503 \`PUBLICATION_CLOSED\` / \`AUTHORITY_UNAVAILABLE\`; 410 \`QUOTE_NOT_OPEN\`
7. 400 \`AMOUNT_INVALID\`, \`AMOUNT_TOO_LOW\`; 409 \`INSUFFICIENT_CAPACITY\` (above maxAvailableInRaw); 400 \`UNSUPPORTED_STANDARD\`
8. 400 \`IDENTITY_INVALID\`
9. 400 \`SIGNATURE_INVALID\`
10. fresh price, reservation, signature: 409 \`QUOTE_CHANGED\`, \`INSUFFICIENT_CAPACITY\`; 503 when a dependency is down; 201

The request-message operation runs the same checks except the rate limit, the signature and the reservation.

## Event stream errors

An \`error\` or \`publication-closed\` event carries an SseErrorEvent, \`{ "error": CODE }\`
(\`INTERNAL_ERROR\` or \`PUBLICATION_CLOSED\`), and ends the stream. Before the
stream starts, errors are JSON answers like any other (503 while publication is closed or at the subscriber
cap).

## Aggregator errors

Under \`/v1\` an error is an AggregatorError:

\`\`\`json
{ "ok": false, "error": "QUOTE_EXPIRED", "message": "...", "retryable": true, "action": "REFRESH_QUOTE" }
\`\`\`

\`action\` tells the caller what to do: \`REFRESH_QUOTE\` (get a new quote: QUOTE_EXPIRED, ROUTE_CLOSED,
QUOTE_CHANGED), \`FIX_REQUEST\`, \`RETRY_LATER\` (after \`retryAfterSeconds\` when given) or \`NONE\`.

| Status | error | action | retryable | Meaning |
| --- | --- | --- | --- | --- |
${aggregatorRows.join("\n")}
`
}

if (import.meta.main) {
  writeFileSync(new URL("../docs/errors.md", import.meta.url), buildErrorsDoc())
  console.log("docs/errors.md written")
}
