# passes
