import type { Limits } from './config';
import { ApiError, ErrorCode } from './errors';
import { AddressLimiter } from './auth/address-limiter';
import type { DocumentBlobs } from './store/shared-store';
import { TokenBucket } from './sync/rate';

/**
 * How many rooms may be created: `roomsPerMinute` per client address, `roomsPerHour` for the whole
 * server (so that many addresses together cannot create rooms without end either), and at most
 * `maxRooms` stored. Each refusal is an `ApiError` that names the quota.
 */
export class RoomCreationQuota {
  private readonly perAddress: AddressLimiter;
  private readonly serverWide: TokenBucket;

  constructor(
    private readonly limits: Pick<Limits, 'roomsPerMinute' | 'roomsPerHour' | 'maxRooms'>,
    private readonly roomCount: () => number,
    now?: () => number,
  ) {
    this.perAddress = new AddressLimiter(limits.roomsPerMinute);
    this.serverWide = new TokenBucket(limits.roomsPerHour / 3600, limits.roomsPerHour, now);
  }

  /**
   * Takes one room creation for `address`; throws `rate_limited` or `quota_exceeded` when none is
   * left. `rooms`: the rooms stored now, when the caller has read them (scaled mode: the shared
   * directory's count, read before); by default the count given to the constructor.
   */
  take(address: string, rooms: number = this.roomCount()): void {
    this.checkRooms(rooms);
    if (!this.perAddress.take(address)) throw new ApiError(ErrorCode.rateLimited, 'too many rooms created from this address; try again in a minute');
    if (!this.serverWide.take()) throw new ApiError(ErrorCode.rateLimited, `this server has created its ${this.limits.roomsPerHour} rooms for the hour; try again later`);
  }

  /**
   * Throws `quota_exceeded` when `rooms` are stored already: `maxRooms` is reached. Also given to
   * the store, which checks again in the transaction that creates the room (`take` reads the count
   * before), so that creations at once, through one instance or several, never pass the bound.
   */
  readonly checkRooms = (rooms: number): void => {
    if (rooms >= this.limits.maxRooms) throw new ApiError(ErrorCode.quotaExceeded, `this server holds its limit of ${this.limits.maxRooms} rooms`);
  };
}

/** The bound on a room's documents: how many, and their dump bytes (uncompressed) in all. */
export type DocumentLimits = Pick<Limits, 'documentsPerRoom' | 'roomDocumentBytes'>;

/** Throws `quota_exceeded` when a room that has `used` this much may not take one more document of `bytes`. */
export function checkDocumentQuota(used: { readonly documents: number; readonly bytes: number }, limits: DocumentLimits, bytes: number): void {
  if (used.documents >= limits.documentsPerRoom) throw new ApiError(ErrorCode.quotaExceeded, `this room holds its limit of ${limits.documentsPerRoom} documents`);
  if (used.bytes + bytes > limits.roomDocumentBytes) {
    throw new ApiError(ErrorCode.quotaExceeded, `this room's documents may hold at most ${limits.roomDocumentBytes} bytes; ${used.bytes} are used and this one has ${bytes}`);
  }
}

/**
 * Throws `quota_exceeded` when room `roomId` may not take one more document of `bytes` (dump
 * bytes, uncompressed), by its usage as every instance sees it (`AppDeps.content.documents`): an
 * early check, before a dump is indexed; the store checks again where it lists the document.
 */
export async function assertRoomDocumentQuota(documents: Pick<DocumentBlobs, 'usage'>, limits: DocumentLimits, roomId: string, bytes: number): Promise<void> {
  checkDocumentQuota(await documents.usage(roomId), limits, bytes);
}
