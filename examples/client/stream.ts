/**
 * Follow the verified feed over the event stream (the Effect API).
 *
 *   node_modules/.bin/node examples/client/stream.ts        # runs until Ctrl-C
 *   SVC_STREAM_COUNT=3 node_modules/.bin/node examples/client/stream.ts
 *
 * Every feed event is verified before it is yielded; feeds come in strictly
 * increasing dataVersion order; the stream reconnects with Last-Event-ID and
 * falls back to a verified HTTP snapshot when it cannot recover. Prints one JSON
 * line per feed and per diagnostic on standard output and, when no new feed comes
 * for a few seconds, what it is waiting for on standard error.
 */
import { SvcClient } from "@svc/client"
import { Effect, Stream } from "effect"

/** How long without a new feed before saying what the stream waits for, milliseconds. */
const QUIET_MS = 3000

/**
 * What a quiet stream waits for: the server publishes when a route's terms
 * change, when `svc admin` changes something, and when half of the feed's
 * validity is left.
 */
const waitingNote = (
  feed: { readonly dataVersion: string; readonly generatedAt: number; readonly validUntil: number }
) =>
  `connected; the current feed is dataVersion ${feed.dataVersion}; waiting for the next publication (the server republishes about every ${
    Math.max(1, Math.round((feed.validUntil - feed.generatedAt) / 2))
  } s, and when a route changes; \`svc admin republish\` triggers one now)`

export const main = (baseUrl: string, count: number) =>
  Effect.gen(function*() {
    const svc = yield* SvcClient
    const seen: Array<string> = []
    let quiet: ReturnType<typeof setTimeout> | undefined
    yield* svc.feedEvents({ maxDelayMs: 10_000 }).pipe(
      Stream.tap((event) =>
        Effect.sync(() => {
          if (event._tag === "Feed") {
            clearTimeout(quiet)
            // standard error: standard output stays one JSON line per event
            quiet = setTimeout(() => console.error(waitingNote(event.feed)), QUIET_MS)
            quiet.unref()
            seen.push(event.feed.dataVersion)
            console.log(JSON.stringify({
              feed: event.feed.dataVersion,
              source: event.source,
              openRoutes: event.feed.openRoutes.length,
              validUntil: event.feed.validUntil
            }))
          } else {
            console.log(JSON.stringify({ event: event._tag }))
          }
        })
      ),
      Stream.filter((event) => event._tag === "Feed"),
      Stream.take(count),
      Stream.runDrain,
      Effect.ensuring(Effect.sync(() => clearTimeout(quiet)))
    )
    return seen
  }).pipe(Effect.provide(SvcClient.layer({ baseUrl })))

if (import.meta.main) {
  const count = Number(process.env.SVC_STREAM_COUNT ?? Number.POSITIVE_INFINITY)
  Effect.runPromise(main(process.env.SVC_URL ?? "http://127.0.0.1:8787", count)).then(
    (versions) => console.log(JSON.stringify({ done: true, versions })),
    (error: unknown) => {
      console.error(String(error))
      process.exitCode = 1
    }
  )
}
