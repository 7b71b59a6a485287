/**
 * The remote signer of docs/embedding.md (examples/embed-core/remote-signer.ts), against a
 * signing service in this process: its signatures recover to the key's address; a service that
 * signs with another key, answers an error or is down gives `SignerUnavailable`; the document
 * shows the example exactly as it is.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Hex } from "@svc/protocol/Bytes"
import * as Signature from "@svc/protocol/Signature"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll } from "vitest"
import * as RemoteSigner from "../../../examples/embed-core/remote-signer.ts"
import * as Signer from "../src/Signer.ts"

const KEY: Hex = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
const OTHER: Hex = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const DIGEST: Hex = `0x${"ab".repeat(32)}`

/** The service's behaviour, per path: sign with KEY, sign with OTHER, or answer 500. */
let service: Server
let base: string

beforeAll(async () => {
  service = createServer((request, response) => {
    let body = ""
    request.on("data", (d) => (body += d))
    request.on("end", () => {
      const { digest } = JSON.parse(body) as { digest: Hex }
      if (request.url === "/broken") {
        response.writeHead(500).end()
        return
      }
      const signature = Signature.signDigest(digest, request.url === "/other" ? OTHER : KEY)
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ signature }))
    })
  })
  await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(service.address() as { port: number }).port}`
})

afterAll(() => new Promise<void>((resolve) => service.close(() => resolve())))

const sign = (path: string) =>
  Effect.flatMap(Effect.service(Signer.Signer), (signer) => signer.signDigest(DIGEST)).pipe(
    Effect.provide(RemoteSigner.layer({ url: `${base}${path}`, address: Signature.addressOf(KEY) }))
  )

describe("the remote signer example", () => {
  it.live("signs through the service: the signature recovers to the key's address, as a key in memory signs", () =>
    Effect.gen(function*() {
      const signature = yield* sign("/sign")
      assert.strictEqual(signature, Signature.signDigest(DIGEST, KEY))
      const signer = yield* Effect.service(Signer.Signer).pipe(
        Effect.provide(RemoteSigner.layer({ url: `${base}/sign`, address: Signature.addressOf(KEY) }))
      )
      assert.isFalse(signer.development)
    }))

  it.live("another key's signature, an HTTP error or no service: SignerUnavailable, saying which", () =>
    Effect.gen(function*() {
      const other = yield* Effect.flip(sign("/other"))
      assert.strictEqual(other._tag, "SignerUnavailable")
      assert.strictEqual(
        other.message,
        `remote signer: the signature is not ${Signature.addressOf(KEY)}'s (signed by ${Signature.addressOf(OTHER)})`
      )
      assert.strictEqual((yield* Effect.flip(sign("/broken"))).message, "remote signer: HTTP 500")
      const down = yield* Effect.flip(
        Effect.flatMap(Effect.service(Signer.Signer), (signer) => signer.signDigest(DIGEST)).pipe(
          Effect.provide(RemoteSigner.layer({ url: "http://127.0.0.1:1/sign", address: Signature.addressOf(KEY) }))
        )
      )
      assert.match(down.message, /^remote signer: /)
    }))

  it("docs/embedding.md shows it exactly as it is", () => {
    const doc = readFileSync(new URL("../../../docs/embedding.md", import.meta.url), "utf8")
    const source = readFileSync(new URL("../../../examples/embed-core/remote-signer.ts", import.meta.url), "utf8")
    const block = /<!-- example:remote-signer -->\n```ts\n([\s\S]*?)```\n<!-- \/example -->/.exec(doc)
    assert.isNotNull(block, "docs/embedding.md must contain the example block")
    assert.strictEqual(block![1], source)
  })
})
