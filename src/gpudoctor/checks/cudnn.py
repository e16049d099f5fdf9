"""placeholder, filled below"""
CHECKS = ()
