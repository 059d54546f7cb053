"""The library a user holds: books found, loaded, layered (errata, editions, house rules) and cached."""
