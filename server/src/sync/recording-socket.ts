import type { SocketLike } from './connection';

/** For tests: a socket that records the frames it was sent and the code it was closed with. */
export class RecordingSocket implements SocketLike {
  readonly sent: Uint8Array[] = [];
  closedWith: number | undefined;
  send(data: Uint8Array): void {
    this.sent.push(data);
  }
  close(code: number): void {
    this.closedWith = code;
  }
}
