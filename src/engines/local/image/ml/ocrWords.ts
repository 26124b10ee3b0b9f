/** One recognised word (Tesseract) or line (PaddleOCR) with its box in input pixels; shared by the OCR engines. */
export interface OcrBox {
  text: string;
  /** 0..100, as tesseract reports it. */
  confidence: number;
  box: { x: number; y: number; width: number; height: number };
}

/** Page segmentation modes offered to callers, by name, with tesseract's numbers. */
export const PSM_MODES: Record<string, number> = { auto: 3, single_block: 6, single_line: 7, sparse: 11 };

/** Small pictures are enlarged before recognition: tesseract reads best at ~30 px letter height. */
export function ocrUpscale(width: number, height: number): number {
  const side = Math.max(width, height);
  return side < 400 ? 3 : side < 1000 ? 2 : 1;
}
