/**
 * Discover a running svc server and read its signed feed, verified.
 *
 *   npm start                                   # in another terminal
 *   node_modules/.bin/node examples/client/discover-and-verify.ts
 *
 * SVC_URL selects the server (default http://127.0.0.1:8787); SVC_SIGNER pins
 * the expected feed signer. Prints one JSON object.
 */
import { createClient, isSvcClientError } from "@svc/client"

export const main = async (baseUrl: string, pinnedSigner?: string) => {
  const svc = createClient({ baseUrl, pinnedSigner })

  // 1. The solver manifest: every endpoint the client calls comes from it.
  const discovery = await svc.discover()

  // 2. The feed, verified: signedPayload hashed and its signature recovered to the
  //    manifest's feedSigner (or the pinned one), inside its validity window.
  //    The routes are taken from the signed payload, never from the unsigned views.
  const feed = await svc.feed({ sourceChainId: 8453 })

  // 3. A second read sends If-None-Match and gets 304 while nothing changed.
  const again = await svc.feed({ sourceChainId: 8453 })

  return {
    feedSigner: discovery.expectedSigner,
    feedEndpoint: discovery.manifest.endpoints.solverFeed,
    dataVersion: feed.dataVersion,
    valid: feed.verification.valid,
    feedHash: feed.feedHash,
    validUntil: feed.validUntil,
    routes: feed.routes.length,
    openRoutes: feed.openRoutes.map((r) => ({
      routeId: r.routeId,
      from: r.sourceChainId,
      to: r.destinationChainId,
      minimumFillInRaw: r.minimumFillInRaw,
      maxAvailableInRaw: r.maxAvailableInRaw
    })),
    secondReadNotModified: again.notModified
  }
}

if (import.meta.main) {
  main(process.env.SVC_URL ?? "http://127.0.0.1:8787", process.env.SVC_SIGNER).then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      // every rejection is a typed client error with a stable code
      console.error(isSvcClientError(error) ? `${error.code}: ${error.message}` : error)
      process.exitCode = 1
    }
  )
}
