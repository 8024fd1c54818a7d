/* Drawing and front-end functions that mines.c's game table names but a mine layout never calls. */
#include <stdlib.h>
#define STUB(name) void name(void) { abort(); }
STUB(clip)
STUB(draw_circle)
STUB(draw_line)
STUB(draw_polygon)
STUB(draw_rect)
STUB(draw_text)
STUB(draw_update)
STUB(fatal)
STUB(frontend_default_colour)
STUB(midend_supersede_game_desc)
STUB(status_bar)
STUB(unclip)
