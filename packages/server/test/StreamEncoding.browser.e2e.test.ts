/**
 * Compressed event streams in a real browser: Chromium's EventSource reads the
 * server's stream (in process, on an ephemeral port, network closed:
 * test/support/browser.ts) in the coding Chromium asks for, gets the `feed`
 * event whose data is the feed the server serves by GET, then the next
 * publication's event on the same connection (frames compressed once, appended
 * to each subscriber's stream). Chromium offers zstd to this machine (as to any
 * HTTPS origin); the gzip stream is asked for by overriding the request's
 * Accept-Encoding through the DevTools protocol, as a browser without zstd sends
 * it.
 */
import { Publisher } from "@svc/core"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type Browser, launch, noBrowser, skipReason } from "../../../test/support/browser.ts"
import * as App from "../src/App.ts"
import { serverLayer, testConfig } from "./support/server.ts"

const TIMEOUT = 60_000
const missing = skipReason()

if (missing !== undefined) {
  describe("compressed event streams in Chromium", () => {
    it("Chromium is available (required on CI)", (context) => noBrowser(context))
  })
} else {
  describe("compressed event streams in Chromium", () => {
    let browser: Browser | undefined
    let scope: Scope.Closeable | undefined
    let base = ""
    let republish: () => Promise<void> = async () => {}

    beforeAll(async () => {
      scope = Effect.runSync(Scope.make())
      const context = await Effect.runPromise(Scope.provide(Layer.build(serverLayer(testConfig())), scope))
      base = Context.get(context, App.AppControl).publicUrl
      const publisher = Context.get(context, Publisher.Publisher)
      republish = () => Effect.runPromise(Effect.asVoid(publisher.publishNow))
      browser = await launch()
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    for (const acceptEncoding of [undefined, "gzip, deflate, br"] as const) {
      const expected = acceptEncoding === undefined ? "zstd" : "gzip"
      it(`EventSource reads a ${expected} stream: the feed event, then the next publication's`, async () => {
        const p = await browser!.open()
        try {
          if (acceptEncoding !== undefined) {
            const cdp = await p.page.context().newCDPSession(p.page)
            await cdp.send("Network.enable")
            await cdp.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Encoding": acceptEncoding } })
          }
          const codings: Array<string | undefined> = []
          p.page.on("response", (response) => {
            if (response.url().endsWith("/api/v6/solver-feed/events")) {
              codings.push(response.headers()["content-encoding"])
            }
          })
          await p.page.goto(`${base}/api/v6/solver-discovery`)
          await p.page.evaluate(() => {
            const w = window as unknown as { events: Array<{ id: string; data: string }> }
            w.events = []
            const source = new EventSource("/api/v6/solver-feed/events")
            source.addEventListener("feed", (e) => {
              const m = e as MessageEvent<string>
              w.events.push({ id: m.lastEventId, data: m.data })
            })
          })
          const events = () =>
            p.page.evaluate(() => (window as unknown as { events: Array<{ id: string; data: string }> }).events)
          await p.page.waitForFunction(() => (window as unknown as { events: Array<unknown> }).events.length >= 1)
          const feed = await (await fetch(`${base}/api/v6/solver-feed`)).text()
          const first = (await events())[0]!
          // the event's data is the SignedFeed the GET serves (its `feed` member, byte for byte)
          assert.strictEqual(first.data, feed.slice("{\"ok\":true,\"feed\":".length, -1))
          assert.strictEqual(first.id, JSON.parse(first.data).signedPayload.dataVersion)
          await republish()
          await p.page.waitForFunction(() => (window as unknown as { events: Array<unknown> }).events.length >= 2)
          const second = (await events())[1]!
          assert.isTrue(BigInt(second.id) > BigInt(first.id))
          assert.strictEqual(second.id, JSON.parse(second.data).signedPayload.dataVersion)
          assert.deepStrictEqual(codings, [expected])
          assert.deepStrictEqual(p.errors, [])
          assert.deepStrictEqual(p.external, [])
        } finally {
          await p.close()
        }
      }, TIMEOUT)
    }
  })
}
