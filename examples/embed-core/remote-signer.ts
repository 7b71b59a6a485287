/**
 * A remote signer for the authority key (docs/embedding.md, "A remote signer"): the key stays in a
 * signing service (a KMS or an HSM behind your own endpoint) and svc asks it for each signature.
 * The service answers `POST {"digest": "0x…"}` (a raw 32-byte digest, no prefix added) with
 * `{"signature": "0x…"}`, 65 bytes `r || s || v`; each signature is checked against the key's
 * address before svc uses it. Anything else is `Signer.SignerUnavailable`: the server answers 503
 * and keeps serving its last valid publication.
 *
 *   Layer.provide(App.layer({ ... }), RemoteSigner.layer({ url, address }))
 */
import { Signer } from "@svc/core"
import type { Hex } from "@svc/protocol/Bytes"
import * as Signature from "@svc/protocol/Signature"
import { Effect, Layer, Result } from "effect"

/** Where the signing service is and which key it holds. */
export interface RemoteSignerOptions {
  /** The service's signing endpoint. */
  readonly url: string
  /** The address of the key it holds (the `feedSigner` clients pin). */
  readonly address: Hex
  /** The longest wait for one signature (default 5 s). */
  readonly timeoutMillis?: number
}

/** The authority signer over a remote signing service. */
export const layer = (options: RemoteSignerOptions): Layer.Layer<Signer.Signer> =>
  Layer.succeed(
    Signer.Signer,
    Signer.Signer.of({
      address: options.address,
      development: false,
      signDigest: (digest) =>
        Effect.tryPromise({
          try: async (signal) => {
            const response = await fetch(options.url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ digest }),
              signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMillis ?? 5000)])
            })
            if (!response.ok) throw new Error(`HTTP ${response.status}`)
            const { signature } = (await response.json()) as { readonly signature?: unknown }
            if (typeof signature !== "string") throw new Error("the answer has no signature")
            return signature
          },
          catch: (e) => new Signer.SignerUnavailable({ message: `remote signer: ${(e as Error).message}` })
        }).pipe(
          Effect.flatMap((signature) => {
            // low-s, v = 27/28, and the key's own: a service that signs with another key is refused
            const signer = Signature.recoverDigestSigner(digest, signature)
            return Result.isSuccess(signer) && signer.success.toLowerCase() === options.address.toLowerCase()
              ? Effect.succeed(signature as Hex)
              : Effect.fail(
                new Signer.SignerUnavailable({
                  message: `remote signer: the signature is not ${options.address}'s (${
                    Result.isSuccess(signer) ? `signed by ${signer.success}` : signer.failure.message
                  })`
                })
              )
          })
        )
    })
  )
