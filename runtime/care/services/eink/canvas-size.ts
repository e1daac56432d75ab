/** The one display size the spec knows: every template and rendered image is 800x480. */
export const EINK_WIDTH = 800;
export const EINK_HEIGHT = 480;
