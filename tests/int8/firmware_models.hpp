#pragma once
// The generated models the Cortex-M test builds firmware for, as one list:
// STATICNET_FIRMWARE_MODELS(X) calls X(namespace, model type, setup type) for each.
#include "fixture_models.hpp"
#include "int8_digits_mcu.hpp"
#include "int8_ds_block_mcu.hpp"
#include "int8_ds_cnn_mcu.hpp"
#include "int8_fc_autoencoder_mcu.hpp"
#include "int8_mobilenet_v1_mcu.hpp"
#include "int8_models.hpp"
#include "int8_residual_mcu.hpp"
#include "int8_resnet8_mcu.hpp"

#define STATICNET_FIRMWARE_MODELS(X)                                                 \
  X(int8_digits, int8_models::DigitsCnn, int8_models::DigitsSetup)                   \
  X(int8_residual, int8_models::Residual, int8_models::ResidualSetup)                \
  X(int8_ds_block, int8_models::DsBlock, int8_models::DsBlockSetup)                  \
  X(int8_resnet8, staticnet::samples::ResNet8, int8_models::ResNet8Setup)            \
  X(int8_ds_cnn, staticnet::samples::DSCNN, int8_models::DsCnnSetup)                 \
  X(int8_mobilenet_v1, staticnet::samples::MobileNetV1, int8_models::MobileNetSetup) \
  X(int8_fc_autoencoder, staticnet::samples::FCAutoencoder, int8_models::AutoencoderSetup)
