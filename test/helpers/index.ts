export { addDocument, createRoom, listAnnotations, startTestServer, type CreatedRoom, type TestServer } from './server';
export { connectClient, messageType, rawSocket, waitFor, type RawSocket, type TestClient } from './sync-client';
export { note } from './annotations';
