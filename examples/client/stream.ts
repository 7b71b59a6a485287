/**
 * Follow the verified feed over the event stream (the Effect API).
 *
 *   node_modules/.bin/node examples/client/stream.ts        # runs until Ctrl-C
 *   SVC_STREAM_COUNT=3 node_modules/.bin/node examples/client/stream.ts
 *
 * Every feed event is verified before it is yielded; feeds come in strictly
 * increasing dataVersion order; the stream reconnects with Last-Event-ID and
 * falls back to a verified HTTP snapshot when it cannot recover. Prints one JSON
 * line per feed and per diagnostic.
 */
import { SvcClient } from "@svc/client"
import { Effect, Stream } from "effect"

export const main = (baseUrl: string, count: number) =>
  Effect.gen(function*() {
    const svc = yield* SvcClient
    const seen: Array<string> = []
    yield* svc.feedEvents({ maxDelayMs: 10_000 }).pipe(
      Stream.tap((event) =>
        Effect.sync(() => {
          if (event._tag === "Feed") {
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
      Stream.runDrain
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
