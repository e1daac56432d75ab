/**
 * What cards, quizzes and suggestions need of a knowledge document, which documents/ owns: a
 * document's text (to draft from) and one of its images (to put in a slot). Two narrow
 * functions, set once where the app is wired (`useDocumentPorts`), so this side never queries
 * the documents' tables and tests can give fakes.
 */
export interface DocumentText {
  id: number;
  title: string;
  source_text: string;
  status: string;
}

export interface DocumentImage {
  id: number;
  document_id: number;
  object_name: string;
  mime_type: string;
  alt_text: string;
}

export interface DocumentPorts {
  text(id: number): Promise<DocumentText | undefined>;
  image(imageId: number): Promise<DocumentImage | undefined>;
}

const none: DocumentPorts = {
  text: async () => undefined,
  image: async () => undefined,
};

let ports: DocumentPorts = none;

export const useDocumentPorts = (p: Partial<DocumentPorts>): void => void (ports = { ...none, ...p });
export const documentPorts = (): DocumentPorts => ports;
