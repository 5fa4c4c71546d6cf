// MUST NOT COMPILE under nvcc either: the same model as deep_cnn_in_features.cpp (see the
// derivation there: layer 10, InFeatures 2048 written, 8192 arriving). nvcc's front end prints
// the numbers with an L suffix (layer<10L, ...>, in_features_written<2048L>).
#include "deep_cnn_in_features.cpp"
