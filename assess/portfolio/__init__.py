"""The portfolio: many vendors scored and ranked in one table (`assess portfolio`)."""
