/** The knowledge search (care/services/knowledge/retrieval): what other modules may call. */
export { chunkText, tokensOf, type TextChunk } from "./chunker";
export { chunkCounts, chunksOf, clearEmbeddings, deleteChunksOf, replaceChunks, setSearchable, type ChunkRow } from "./chunks.store";
export { embedderIdle, embeddingState, kickEmbedder, startEmbedder, type EmbeddingState } from "./embedder";
export { askKnowledge, NO_INFORMATION, type AskChannel, type AskResult, type DocumentTitles } from "./ask";
export { searchChunks, type Passage } from "./search";
export { listQueries, type AnsweredVia, type QueryRow } from "./queries.store";
