/**
 * The signed documents of the publisher: {@link Documents.build} builds, signs
 * and stores a publication from the terms of its routes, {@link Documents.adopt}
 * checks the document another replica (the leader) stored before it is served.
 * Both give the publication ready to serve (`views.ts`). Internal to the
 * publisher.
 *
 * @since 0.1.0
 */
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import { FEED_SCHEMA, type Route, SignedFeedPayload } from "@svc/protocol/schema/Feed"
import { strictParseOptions } from "@svc/protocol/schema/index"
import * as Signature from "@svc/protocol/Signature"
import { Effect, Result, Schema } from "effect"
import type { Catalog, CatalogRoute } from "../../Catalog.ts"
import type { Economics } from "../../Economics.ts"
import * as Economy from "../../Economics.ts"
import type { Publication } from "../../Publisher.ts"
import type { Signer } from "../../Signer.ts"
import type { PublicationDocument, Store } from "../../Store.ts"
import type { KeccakStream } from "../fastKeccak.ts"
import {
  arraySlot,
  COMMA,
  fillSlot,
  jsonStringBody,
  memberText,
  RouteLists,
  type SignedDocument,
  signedDocument,
  signedDocumentText,
  utf8 as utf8Bytes
} from "../publication.ts"
import { canonicalFailure, PublishFailed, schemaFailure } from "./errors.ts"
import { decodeRoute, routeTextOf } from "./routeTexts.ts"
import { type Memo, PUBLICATION_CHUNK, type RouteTerms } from "./terms.ts"
import { materialize, type ViewSettings } from "./views.ts"

const decodePayload = Schema.decodeUnknownResult(SignedFeedPayload)

/** Bytes hashed between two yields to the event loop (about a millisecond of keccak). */
const HASH_SLICE = 512 * 1024

/**
 * What the documents of one publisher are made with: its services, its memo
 * tables, its keccak streams, the feed's validity and the settings of its views.
 *
 * @category models
 * @since 0.1.0
 */
export interface DocumentsContext {
  readonly catalog: Catalog["Service"]
  readonly store: Store["Service"]
  readonly signer: Signer["Service"]
  readonly economics: Economics["Service"]
  readonly memo: Memo
  readonly keccakStream: Effect.Effect<KeccakStream>
  /** Feed validity, seconds. */
  readonly ttl: number
  readonly views: ViewSettings
}

/**
 * The two ways a publisher gets a publication to serve.
 *
 * @category models
 * @since 0.1.0
 */
export interface Documents {
  /** Builds, signs and stores a publication of these route terms at `now` (seconds). */
  readonly build: (
    now: number,
    built: ReadonlyArray<{ terms: RouteTerms; route: CatalogRoute }>
  ) => Effect.Effect<Publication, PublishFailed>
  /** The publication of a document another replica (the leader) stored; checked before it is served. */
  readonly adopt: (stored: PublicationDocument) => Effect.Effect<Publication, PublishFailed>
}

/**
 * The documents of one publisher.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeDocuments = (context: DocumentsContext): Documents => {
  const { catalog, economics, keccakStream, memo, signer, store, ttl, views } = context

  /**
   * Builds, signs and stores a publication. Everything proportional to the routes runs in
   * chunks of routes with a yield to the event loop after each chunk: the Route schema
   * check and canonical text of each route whose terms changed (a route whose terms did not
   * change reuses its checked canonical text around the dataVersion), the UTF-8 bytes of the
   * chunk, fed to the feed hash as they come, and its escaped form for the stored document.
   * The unfiltered view's bytes are assembled from the same chunk bytes.
   */
  const build = Effect.fnUntraced(
    function*(now: number, built: ReadonlyArray<{ terms: RouteTerms; route: CatalogRoute }>) {
      const dataVersion = yield* store.nextDataVersion.pipe(
        Effect.mapError((e) => new PublishFailed({ reason: e.message, cause: e }))
      )
      const dv = dataVersion.toString()
      const generatedAt = now
      const validUntil = now + ttl
      const head = { schema: FEED_SCHEMA, releaseId: catalog.releaseId, dataVersion: dv, generatedAt, validUntil }
      // the payload without its routes: every route is checked on its own below, and the
      // dataVersion, the one member of a route not in its terms, is checked here
      const checkedHead = decodePayload({ ...head, routes: [] }, strictParseOptions)
      if (Result.isFailure(checkedHead)) return yield* schemaFailure("signedPayload", checkedHead.failure)
      const around = Result.try({
        try: () => ({ payload: arraySlot(head, "routes"), dataVersion: memberText("dataVersion", dv) }),
        catch: (e) =>
          e instanceof CanonicalJson.CanonicalJsonError
            ? e
            : new CanonicalJson.CanonicalJsonError({ path: "$", reason: String(e) })
      })
      if (Result.isFailure(around)) return yield* canonicalFailure(around.failure)
      const payloadOpen = around.success.payload.open
      const payloadClose = around.success.payload.close
      const dataVersionMember = around.success.dataVersion

      const hash = yield* keccakStream
      hash.update(utf8Bytes(`${FEED_SCHEMA}\n${payloadOpen}`))
      const routes: Array<Route> = []
      const routeTexts: Array<string> = []
      const escapedDataVersion = jsonStringBody(dataVersionMember)
      const chunkTexts: Array<string> = []
      const openBytes = utf8Bytes(payloadOpen)
      const payloadPieces: Array<Uint8Array> = [openBytes]
      const payloadBody: Array<string> = [jsonStringBody(payloadOpen)]
      const lists = new RouteLists()
      for (let start = 0; start < built.length; start += PUBLICATION_CHUNK) {
        const end = Math.min(built.length, start + PUBLICATION_CHUNK)
        const open: Array<boolean> = []
        for (let i = start; i < end; i++) {
          const terms = built[i]!.terms
          // (a plain copy of the terms, then the dataVersion: the fast way to copy an object)
          const route: Route = { ...terms, dataVersion: dv }
          let text = memo.routeTexts.get(terms.routeId)
          if (text === undefined || text.terms !== terms) {
            const next = routeTextOf(route, terms, text, `routes[${i}]`)
            if (Result.isFailure(next)) return yield* next.failure
            text = next.success
            memo.routeTexts.set(terms.routeId, text)
          }
          routeTexts.push(fillSlot(text.text, dataVersionMember))
          // the stored document's pieces, joined once at the end
          if (i > 0) payloadBody.push(",")
          payloadBody.push(text.escaped.before, escapedDataVersion, text.escaped.after)
          routes.push(route)
          open.push(route.open)
        }
        const chunk = lists.add(routeTexts.slice(start, end), open)
        if (start > 0) {
          hash.update(COMMA)
          payloadPieces.push(COMMA)
        }
        hash.update(chunk.bytes)
        payloadPieces.push(chunk.bytes)
        chunkTexts.push(chunk.text)
        yield* Effect.yieldNow
      }
      const closeBytes = utf8Bytes(payloadClose)
      hash.update(closeBytes)
      payloadPieces.push(closeBytes)
      payloadBody.push(jsonStringBody(payloadClose))
      const feedHash = hash.digest()
      const canonicalPayload = `${payloadOpen}${chunkTexts.join(",")}${payloadClose}`
      const payload: SignedFeedPayload = { ...head, routes }

      const feedSignature = yield* signer.signDigest(feedHash).pipe(
        Effect.mapError((e) => new PublishFailed({ reason: e.message, cause: e }))
      )
      yield* Effect.yieldNow
      const evidence = yield* economics.evidence(routes)
      const actionableRoutes = Economy.shortlist(routes, evidence)
      const document = signedDocument(canonicalPayload, {
        feedHash,
        feedSignature,
        feedSigner: signer.address,
        actionableRoutes
      })
      yield* Effect.yieldNow
      const recorded = yield* store.recordPublication({
        dataVersion,
        feedHash,
        generatedAt,
        validUntil,
        routeCount: routes.length
      }).pipe(Effect.mapError((e) => new PublishFailed({ reason: e.message, cause: e })))
      if (!recorded) {
        // paused between drawing the dataVersion and recording it while another replica published: this
        // publication is never served nor stored (the newer one is adopted)
        return yield* new PublishFailed({ reason: `dataVersion ${dv} superseded: a newer publication is recorded` })
      }
      const documentText = signedDocumentText(document, payloadBody)
      yield* Effect.yieldNow
      // the other replicas serve these very bytes (written before anyone is told)
      yield* store.savePublicationDocument({ dataVersion, document: documentText }).pipe(
        Effect.mapError((e) => new PublishFailed({ reason: e.message, cause: e }))
      )
      yield* Effect.yieldNow
      return materialize(views, {
        dataVersion,
        payload,
        document,
        routeTexts,
        catalogRoutes: built.map((b) => b.route),
        pieces: { payload: payloadPieces, routes: lists.routes.pieces, open: lists.open.pieces }
      })
    }
  )

  /** The publication of a document another replica (the leader) stored; checked before it is served. */
  const adopt = Effect.fnUntraced(function*(stored: PublicationDocument) {
    const invalid = (reason: string) =>
      new PublishFailed({ reason: `stored publication ${stored.dataVersion}: ${reason}` })
    const parsed = Result.try(() => JSON.parse(stored.document) as SignedDocument)
    if (Result.isFailure(parsed)) return yield* invalid("not JSON")
    const document = parsed.success
    yield* Effect.yieldNow
    // the feed hash of the payload's bytes, a slice at a time
    const payloadBytes = utf8Bytes(`${document.canonicalPayload}`)
    const hash = yield* keccakStream
    hash.update(utf8Bytes(`${FEED_SCHEMA}\n`))
    for (let at = 0; at < payloadBytes.length; at += HASH_SLICE) {
      if (at > 0) yield* Effect.yieldNow
      hash.update(payloadBytes.subarray(at, at + HASH_SLICE))
    }
    if (hash.digest() !== document.feedHash) return yield* invalid("its feedHash does not match its payload")
    if (document.feedSigner.toLowerCase() !== signer.address.toLowerCase()) {
      return yield* invalid(`signed by ${document.feedSigner}, not by this replica's key ${signer.address}`)
    }
    // the signature itself, not only the signer it names: clients would refuse a feed whose
    // feedSignature does not recover to feedSigner
    const recovered = Signature.recoverDigestSigner(document.feedHash, document.feedSignature)
    if (Result.isFailure(recovered) || recovered.success.toLowerCase() !== signer.address.toLowerCase()) {
      return yield* invalid(`its feedSignature does not recover to this replica's key ${signer.address}`)
    }
    yield* Effect.yieldNow
    // the payload without its routes first, then every route on its own, in chunks (the same
    // check as the whole SignedFeedPayload, without one long block for a large payload)
    const parsedPayload = Result.try(() => JSON.parse(document.canonicalPayload) as unknown)
    const raw = Result.isSuccess(parsedPayload) ? parsedPayload.success : undefined
    const rawRoutes = typeof raw === "object" && raw !== null
      ? (raw as { readonly routes?: unknown }).routes
      : undefined
    if (!Array.isArray(rawRoutes)) return yield* invalid("its payload fails its schema")
    const head = decodePayload({ ...(raw as object), routes: [] }, strictParseOptions)
    if (Result.isFailure(head)) return yield* invalid("its payload fails its schema")
    if (head.success.dataVersion !== stored.dataVersion.toString()) return yield* invalid("dataVersion differs")
    if (head.success.releaseId.toLowerCase() !== catalog.releaseId.toLowerCase()) {
      return yield* invalid("another releaseId than this replica's catalog")
    }
    yield* Effect.yieldNow
    const routes: Array<Route> = []
    const routeTexts: Array<string> = []
    const catalogRoutes: Array<CatalogRoute> = []
    const lists = new RouteLists()
    for (let start = 0; start < rawRoutes.length; start += PUBLICATION_CHUNK) {
      const end = Math.min(rawRoutes.length, start + PUBLICATION_CHUNK)
      const open: Array<boolean> = []
      for (let i = start; i < end; i++) {
        const decoded = decodeRoute(rawRoutes[i], strictParseOptions)
        if (Result.isFailure(decoded)) return yield* invalid("its payload fails its schema")
        const route = decoded.success
        const catalogRoute = catalog.route(route.routeId)
        if (catalogRoute === undefined) {
          return yield* invalid(
            `route ${route.routeId} is not in this replica's catalog (replicas need the same catalog)`
          )
        }
        routes.push(route)
        catalogRoutes.push(catalogRoute)
        routeTexts.push(CanonicalJson.stringify(route))
        open.push(route.open)
      }
      lists.add(routeTexts.slice(start, end), open)
      yield* Effect.yieldNow
    }
    const payload: SignedFeedPayload = { ...head.success, routes }
    return materialize(views, {
      dataVersion: stored.dataVersion,
      payload,
      document,
      routeTexts,
      catalogRoutes,
      pieces: { payload: [payloadBytes], routes: lists.routes.pieces, open: lists.open.pieces }
    })
  })

  return { build, adopt }
}
