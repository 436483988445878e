/* vk.h: the Vulkan types, constants and entry points this backend uses, declared here so
 * that the shim builds with no Vulkan SDK, for every target of `zig build cross`.
 *
 * Ownership and ordering. Declarations only. Struct layouts and enum values are copied from
 * the Khronos vulkan_core.h (header version 239; these parts have been stable since 1.2,
 * the version we require); handles are declared as opaque pointers, which is their layout
 * on the 64-bit targets we ship. lib.c fills the global and instance tables once per
 * process; each context (vkdrv.h) holds its own device table from vkGetDeviceProcAddr, so
 * calls skip the loader's trampolines. The struct definitions below are vulkan_core.h's,
 * field for field (several fields a line); copy a new one from there rather than typing it.
 */
#ifndef PT_VK_H
#define PT_VK_H
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && !defined(_WIN64)
#define VKAPI_PTR __stdcall
#else
#define VKAPI_PTR
#endif

typedef uint32_t VkBool32;
typedef uint32_t VkFlags;
typedef uint64_t VkDeviceSize;
typedef uint64_t VkDeviceAddress;
typedef int32_t VkResult, VkStructureType, VkPhysicalDeviceType, VkSharingMode, VkCommandBufferLevel, VkQueryType,
    VkSemaphoreType, VkShaderStageFlagBits, VkShaderFloatControlsIndependence, VkPipelineBindPoint;
typedef VkFlags VkAccessFlags, VkBufferCreateFlags, VkBufferUsageFlags, VkCommandBufferUsageFlags, VkCommandPoolCreateFlags,
    VkDeviceCreateFlags, VkDeviceQueueCreateFlags, VkFenceCreateFlags, VkInstanceCreateFlags, VkMemoryAllocateFlags,
    VkMemoryHeapFlags, VkMemoryPropertyFlags, VkPipelineCacheCreateFlags, VkPipelineCreateFlags, VkPipelineLayoutCreateFlags,
    VkPipelineShaderStageCreateFlags, VkPipelineStageFlags, VkQueryPipelineStatisticFlags, VkQueryPoolCreateFlags,
    VkQueueFlags, VkSampleCountFlags, VkSemaphoreCreateFlags, VkSemaphoreWaitFlags, VkShaderModuleCreateFlags,
    VkShaderStageFlags, VkSubgroupFeatureFlags, VkDependencyFlags, VkQueryResultFlags, VkCommandBufferResetFlags,
    VkMemoryMapFlags;

#define VK_HANDLE(name) typedef struct name##_T *name
VK_HANDLE(VkInstance); VK_HANDLE(VkPhysicalDevice); VK_HANDLE(VkDevice); VK_HANDLE(VkQueue); VK_HANDLE(VkCommandBuffer);
VK_HANDLE(VkBuffer); VK_HANDLE(VkDeviceMemory); VK_HANDLE(VkCommandPool); VK_HANDLE(VkSemaphore); VK_HANDLE(VkFence);
VK_HANDLE(VkQueryPool); VK_HANDLE(VkShaderModule); VK_HANDLE(VkPipelineLayout); VK_HANDLE(VkPipeline);
VK_HANDLE(VkPipelineCache); VK_HANDLE(VkDescriptorSetLayout);
typedef struct VkCommandBufferInheritanceInfo VkCommandBufferInheritanceInfo; /* only pointed to */
typedef struct VkSpecializationInfo VkSpecializationInfo;
typedef struct VkAllocationCallbacks VkAllocationCallbacks;
typedef void (VKAPI_PTR *PFN_vkVoidFunction)(void);

#define VK_MAX_PHYSICAL_DEVICE_NAME_SIZE 256U
#define VK_UUID_SIZE 16U
#define VK_LUID_SIZE 8U
#define VK_MAX_EXTENSION_NAME_SIZE 256U
#define VK_MAX_MEMORY_TYPES 32U
#define VK_MAX_MEMORY_HEAPS 16U
#define VK_WHOLE_SIZE (~0ULL)
#define VK_MAKE_API_VERSION(variant, major, minor, patch) \
  ((((uint32_t)(variant)) << 29U) | (((uint32_t)(major)) << 22U) | (((uint32_t)(minor)) << 12U) | ((uint32_t)(patch)))
#define VK_API_VERSION_MAJOR(v) (((uint32_t)(v) >> 22U) & 0x7FU)
#define VK_API_VERSION_MINOR(v) (((uint32_t)(v) >> 12U) & 0x3FFU)
#define VK_API_VERSION_PATCH(v) ((uint32_t)(v) & 0xFFFU)

#define VK_SUCCESS 0
#define VK_NOT_READY 1
#define VK_TIMEOUT 2
#define VK_INCOMPLETE 5
#define VK_ERROR_OUT_OF_HOST_MEMORY -1
#define VK_ERROR_OUT_OF_DEVICE_MEMORY -2
#define VK_ERROR_INITIALIZATION_FAILED -3
#define VK_ERROR_DEVICE_LOST -4
#define VK_ERROR_MEMORY_MAP_FAILED -5
#define VK_ERROR_LAYER_NOT_PRESENT -6
#define VK_ERROR_EXTENSION_NOT_PRESENT -7
#define VK_ERROR_FEATURE_NOT_PRESENT -8
#define VK_ERROR_INCOMPATIBLE_DRIVER -9
#define VK_ERROR_TOO_MANY_OBJECTS -10
#define VK_ERROR_FORMAT_NOT_SUPPORTED -11
#define VK_ERROR_FRAGMENTED_POOL -12
#define VK_ERROR_UNKNOWN -13
#define VK_ERROR_OUT_OF_POOL_MEMORY -1000069000
#define VK_ERROR_INVALID_EXTERNAL_HANDLE -1000072003
#define VK_ERROR_FRAGMENTATION -1000161000
#define VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS -1000257000
#define VK_PIPELINE_COMPILE_REQUIRED 1000297000
#define VK_ERROR_INVALID_SHADER_NV -1000012000
#define VK_STRUCTURE_TYPE_APPLICATION_INFO 0
#define VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO 1
#define VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO 2
#define VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO 3
#define VK_STRUCTURE_TYPE_SUBMIT_INFO 4
#define VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO 5
#define VK_STRUCTURE_TYPE_FENCE_CREATE_INFO 8
#define VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO 9
#define VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO 11
#define VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO 12
#define VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO 16
#define VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO 17
#define VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO 18
#define VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO 29
#define VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO 30
#define VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO 39
#define VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO 40
#define VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO 42
#define VK_STRUCTURE_TYPE_MEMORY_BARRIER 46
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES 1000094000
#define VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO 1000060000
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 1000059000
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2 1000059001
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2 1000059006
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES 1000071004
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES 49
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES 51
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES 1000197000
#define VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO 1000207002
#define VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO 1000207003
#define VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO 1000207004
#define VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO 1000244001
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT 1000237000
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR 1000506000
#define VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR 1000506001
#define VK_COMPONENT_TYPE_FLOAT16_KHR 0
#define VK_COMPONENT_TYPE_FLOAT32_KHR 1
#define VK_SCOPE_SUBGROUP_KHR 3
#define VK_PHYSICAL_DEVICE_TYPE_OTHER 0
#define VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU 1
#define VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU 2
#define VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU 3
#define VK_PHYSICAL_DEVICE_TYPE_CPU 4
#define VK_QUEUE_GRAPHICS_BIT 0x00000001
#define VK_QUEUE_COMPUTE_BIT 0x00000002
#define VK_QUEUE_TRANSFER_BIT 0x00000004
#define VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT 0x00000001
#define VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT 0x00000002
#define VK_MEMORY_PROPERTY_HOST_COHERENT_BIT 0x00000004
#define VK_MEMORY_PROPERTY_HOST_CACHED_BIT 0x00000008
#define VK_MEMORY_HEAP_DEVICE_LOCAL_BIT 0x00000001
#define VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT 0x00000002
#define VK_BUFFER_USAGE_TRANSFER_SRC_BIT 0x00000001
#define VK_BUFFER_USAGE_TRANSFER_DST_BIT 0x00000002
#define VK_BUFFER_USAGE_STORAGE_BUFFER_BIT 0x00000020
#define VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT 0x00020000
#define VK_SHARING_MODE_EXCLUSIVE 0
#define VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT 0x00000002
#define VK_COMMAND_BUFFER_LEVEL_PRIMARY 0
#define VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT 0x00000001
#define VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT 0x00000004
#define VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT 0x00000001
#define VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT 0x00000800
#define VK_PIPELINE_STAGE_TRANSFER_BIT 0x00001000
#define VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT 0x00002000
#define VK_PIPELINE_STAGE_HOST_BIT 0x00004000
#define VK_PIPELINE_STAGE_ALL_COMMANDS_BIT 0x00010000
#define VK_ACCESS_SHADER_READ_BIT 0x00000020
#define VK_ACCESS_SHADER_WRITE_BIT 0x00000040
#define VK_ACCESS_TRANSFER_READ_BIT 0x00000800
#define VK_ACCESS_TRANSFER_WRITE_BIT 0x00001000
#define VK_ACCESS_HOST_READ_BIT 0x00002000
#define VK_ACCESS_HOST_WRITE_BIT 0x00004000
#define VK_ACCESS_MEMORY_READ_BIT 0x00008000
#define VK_ACCESS_MEMORY_WRITE_BIT 0x00010000
#define VK_SEMAPHORE_TYPE_TIMELINE 1
#define VK_QUERY_TYPE_TIMESTAMP 2
#define VK_QUERY_RESULT_64_BIT 0x00000001
#define VK_QUERY_RESULT_WAIT_BIT 0x00000002
#define VK_SHADER_STAGE_COMPUTE_BIT 0x00000020
#define VK_PIPELINE_BIND_POINT_COMPUTE 1
#define VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR 0x00000001
#define VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE 2

typedef struct VkApplicationInfo {
  VkStructureType sType; const void* pNext; const char* pApplicationName; uint32_t applicationVersion;
  const char* pEngineName; uint32_t engineVersion; uint32_t apiVersion;
} VkApplicationInfo;
typedef struct VkInstanceCreateInfo {
  VkStructureType sType; const void* pNext; VkInstanceCreateFlags flags; const VkApplicationInfo* pApplicationInfo;
  uint32_t enabledLayerCount; const char* const* ppEnabledLayerNames; uint32_t enabledExtensionCount;
  const char* const* ppEnabledExtensionNames;
} VkInstanceCreateInfo;
typedef struct VkExtensionProperties {
  char extensionName[VK_MAX_EXTENSION_NAME_SIZE]; uint32_t specVersion;
} VkExtensionProperties;
typedef struct VkPhysicalDeviceLimits {
  uint32_t maxImageDimension1D; uint32_t maxImageDimension2D; uint32_t maxImageDimension3D;
  uint32_t maxImageDimensionCube; uint32_t maxImageArrayLayers; uint32_t maxTexelBufferElements;
  uint32_t maxUniformBufferRange; uint32_t maxStorageBufferRange; uint32_t maxPushConstantsSize;
  uint32_t maxMemoryAllocationCount; uint32_t maxSamplerAllocationCount; VkDeviceSize bufferImageGranularity;
  VkDeviceSize sparseAddressSpaceSize; uint32_t maxBoundDescriptorSets; uint32_t maxPerStageDescriptorSamplers;
  uint32_t maxPerStageDescriptorUniformBuffers; uint32_t maxPerStageDescriptorStorageBuffers;
  uint32_t maxPerStageDescriptorSampledImages; uint32_t maxPerStageDescriptorStorageImages;
  uint32_t maxPerStageDescriptorInputAttachments; uint32_t maxPerStageResources; uint32_t maxDescriptorSetSamplers;
  uint32_t maxDescriptorSetUniformBuffers; uint32_t maxDescriptorSetUniformBuffersDynamic;
  uint32_t maxDescriptorSetStorageBuffers; uint32_t maxDescriptorSetStorageBuffersDynamic;
  uint32_t maxDescriptorSetSampledImages; uint32_t maxDescriptorSetStorageImages;
  uint32_t maxDescriptorSetInputAttachments; uint32_t maxVertexInputAttributes; uint32_t maxVertexInputBindings;
  uint32_t maxVertexInputAttributeOffset; uint32_t maxVertexInputBindingStride; uint32_t maxVertexOutputComponents;
  uint32_t maxTessellationGenerationLevel; uint32_t maxTessellationPatchSize;
  uint32_t maxTessellationControlPerVertexInputComponents;
  uint32_t maxTessellationControlPerVertexOutputComponents;
  uint32_t maxTessellationControlPerPatchOutputComponents; uint32_t maxTessellationControlTotalOutputComponents;
  uint32_t maxTessellationEvaluationInputComponents; uint32_t maxTessellationEvaluationOutputComponents;
  uint32_t maxGeometryShaderInvocations; uint32_t maxGeometryInputComponents; uint32_t maxGeometryOutputComponents;
  uint32_t maxGeometryOutputVertices; uint32_t maxGeometryTotalOutputComponents;
  uint32_t maxFragmentInputComponents; uint32_t maxFragmentOutputAttachments;
  uint32_t maxFragmentDualSrcAttachments; uint32_t maxFragmentCombinedOutputResources;
  uint32_t maxComputeSharedMemorySize; uint32_t maxComputeWorkGroupCount[3];
  uint32_t maxComputeWorkGroupInvocations; uint32_t maxComputeWorkGroupSize[3]; uint32_t subPixelPrecisionBits;
  uint32_t subTexelPrecisionBits; uint32_t mipmapPrecisionBits; uint32_t maxDrawIndexedIndexValue;
  uint32_t maxDrawIndirectCount; float maxSamplerLodBias; float maxSamplerAnisotropy; uint32_t maxViewports;
  uint32_t maxViewportDimensions[2]; float viewportBoundsRange[2]; uint32_t viewportSubPixelBits;
  size_t minMemoryMapAlignment; VkDeviceSize minTexelBufferOffsetAlignment;
  VkDeviceSize minUniformBufferOffsetAlignment; VkDeviceSize minStorageBufferOffsetAlignment;
  int32_t minTexelOffset; uint32_t maxTexelOffset; int32_t minTexelGatherOffset; uint32_t maxTexelGatherOffset;
  float minInterpolationOffset; float maxInterpolationOffset; uint32_t subPixelInterpolationOffsetBits;
  uint32_t maxFramebufferWidth; uint32_t maxFramebufferHeight; uint32_t maxFramebufferLayers;
  VkSampleCountFlags framebufferColorSampleCounts; VkSampleCountFlags framebufferDepthSampleCounts;
  VkSampleCountFlags framebufferStencilSampleCounts; VkSampleCountFlags framebufferNoAttachmentsSampleCounts;
  uint32_t maxColorAttachments; VkSampleCountFlags sampledImageColorSampleCounts;
  VkSampleCountFlags sampledImageIntegerSampleCounts; VkSampleCountFlags sampledImageDepthSampleCounts;
  VkSampleCountFlags sampledImageStencilSampleCounts; VkSampleCountFlags storageImageSampleCounts;
  uint32_t maxSampleMaskWords; VkBool32 timestampComputeAndGraphics; float timestampPeriod;
  uint32_t maxClipDistances; uint32_t maxCullDistances; uint32_t maxCombinedClipAndCullDistances;
  uint32_t discreteQueuePriorities; float pointSizeRange[2]; float lineWidthRange[2]; float pointSizeGranularity;
  float lineWidthGranularity; VkBool32 strictLines; VkBool32 standardSampleLocations;
  VkDeviceSize optimalBufferCopyOffsetAlignment; VkDeviceSize optimalBufferCopyRowPitchAlignment;
  VkDeviceSize nonCoherentAtomSize;
} VkPhysicalDeviceLimits;
typedef struct VkPhysicalDeviceSparseProperties {
  VkBool32 residencyStandard2DBlockShape; VkBool32 residencyStandard2DMultisampleBlockShape;
  VkBool32 residencyStandard3DBlockShape; VkBool32 residencyAlignedMipSize; VkBool32 residencyNonResidentStrict;
} VkPhysicalDeviceSparseProperties;
typedef struct VkPhysicalDeviceProperties {
  uint32_t apiVersion; uint32_t driverVersion; uint32_t vendorID; uint32_t deviceID;
  VkPhysicalDeviceType deviceType; char deviceName[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
  uint8_t pipelineCacheUUID[VK_UUID_SIZE]; VkPhysicalDeviceLimits limits;
  VkPhysicalDeviceSparseProperties sparseProperties;
} VkPhysicalDeviceProperties;
typedef struct VkPhysicalDeviceProperties2 {
  VkStructureType sType; void* pNext; VkPhysicalDeviceProperties properties;
} VkPhysicalDeviceProperties2;
typedef struct VkPhysicalDeviceSubgroupProperties {
  VkStructureType sType; void* pNext; uint32_t subgroupSize; VkShaderStageFlags supportedStages;
  VkSubgroupFeatureFlags supportedOperations; VkBool32 quadOperationsInAllStages;
} VkPhysicalDeviceSubgroupProperties;
typedef struct VkPhysicalDeviceFloatControlsProperties {
  VkStructureType sType; void* pNext; VkShaderFloatControlsIndependence denormBehaviorIndependence;
  VkShaderFloatControlsIndependence roundingModeIndependence; VkBool32 shaderSignedZeroInfNanPreserveFloat16;
  VkBool32 shaderSignedZeroInfNanPreserveFloat32; VkBool32 shaderSignedZeroInfNanPreserveFloat64;
  VkBool32 shaderDenormPreserveFloat16; VkBool32 shaderDenormPreserveFloat32; VkBool32 shaderDenormPreserveFloat64;
  VkBool32 shaderDenormFlushToZeroFloat16; VkBool32 shaderDenormFlushToZeroFloat32;
  VkBool32 shaderDenormFlushToZeroFloat64; VkBool32 shaderRoundingModeRTEFloat16;
  VkBool32 shaderRoundingModeRTEFloat32; VkBool32 shaderRoundingModeRTEFloat64;
  VkBool32 shaderRoundingModeRTZFloat16; VkBool32 shaderRoundingModeRTZFloat32;
  VkBool32 shaderRoundingModeRTZFloat64;
} VkPhysicalDeviceFloatControlsProperties;
typedef struct VkPhysicalDeviceIDProperties {
  VkStructureType sType; void* pNext; uint8_t deviceUUID[VK_UUID_SIZE]; uint8_t driverUUID[VK_UUID_SIZE];
  uint8_t deviceLUID[VK_LUID_SIZE]; uint32_t deviceNodeMask; VkBool32 deviceLUIDValid;
} VkPhysicalDeviceIDProperties;
typedef struct VkPhysicalDeviceFeatures {
  VkBool32 robustBufferAccess; VkBool32 fullDrawIndexUint32; VkBool32 imageCubeArray; VkBool32 independentBlend;
  VkBool32 geometryShader; VkBool32 tessellationShader; VkBool32 sampleRateShading; VkBool32 dualSrcBlend;
  VkBool32 logicOp; VkBool32 multiDrawIndirect; VkBool32 drawIndirectFirstInstance; VkBool32 depthClamp;
  VkBool32 depthBiasClamp; VkBool32 fillModeNonSolid; VkBool32 depthBounds; VkBool32 wideLines;
  VkBool32 largePoints; VkBool32 alphaToOne; VkBool32 multiViewport; VkBool32 samplerAnisotropy;
  VkBool32 textureCompressionETC2; VkBool32 textureCompressionASTC_LDR; VkBool32 textureCompressionBC;
  VkBool32 occlusionQueryPrecise; VkBool32 pipelineStatisticsQuery; VkBool32 vertexPipelineStoresAndAtomics;
  VkBool32 fragmentStoresAndAtomics; VkBool32 shaderTessellationAndGeometryPointSize;
  VkBool32 shaderImageGatherExtended; VkBool32 shaderStorageImageExtendedFormats;
  VkBool32 shaderStorageImageMultisample; VkBool32 shaderStorageImageReadWithoutFormat;
  VkBool32 shaderStorageImageWriteWithoutFormat; VkBool32 shaderUniformBufferArrayDynamicIndexing;
  VkBool32 shaderSampledImageArrayDynamicIndexing; VkBool32 shaderStorageBufferArrayDynamicIndexing;
  VkBool32 shaderStorageImageArrayDynamicIndexing; VkBool32 shaderClipDistance; VkBool32 shaderCullDistance;
  VkBool32 shaderFloat64; VkBool32 shaderInt64; VkBool32 shaderInt16; VkBool32 shaderResourceResidency;
  VkBool32 shaderResourceMinLod; VkBool32 sparseBinding; VkBool32 sparseResidencyBuffer;
  VkBool32 sparseResidencyImage2D; VkBool32 sparseResidencyImage3D; VkBool32 sparseResidency2Samples;
  VkBool32 sparseResidency4Samples; VkBool32 sparseResidency8Samples; VkBool32 sparseResidency16Samples;
  VkBool32 sparseResidencyAliased; VkBool32 variableMultisampleRate; VkBool32 inheritedQueries;
} VkPhysicalDeviceFeatures;
typedef struct VkPhysicalDeviceFeatures2 {
  VkStructureType sType; void* pNext; VkPhysicalDeviceFeatures features;
} VkPhysicalDeviceFeatures2;
typedef struct VkPhysicalDeviceVulkan11Features {
  VkStructureType sType; void* pNext; VkBool32 storageBuffer16BitAccess;
  VkBool32 uniformAndStorageBuffer16BitAccess; VkBool32 storagePushConstant16; VkBool32 storageInputOutput16;
  VkBool32 multiview; VkBool32 multiviewGeometryShader; VkBool32 multiviewTessellationShader;
  VkBool32 variablePointersStorageBuffer; VkBool32 variablePointers; VkBool32 protectedMemory;
  VkBool32 samplerYcbcrConversion; VkBool32 shaderDrawParameters;
} VkPhysicalDeviceVulkan11Features;
typedef struct VkPhysicalDeviceVulkan12Features {
  VkStructureType sType; void* pNext; VkBool32 samplerMirrorClampToEdge; VkBool32 drawIndirectCount;
  VkBool32 storageBuffer8BitAccess; VkBool32 uniformAndStorageBuffer8BitAccess; VkBool32 storagePushConstant8;
  VkBool32 shaderBufferInt64Atomics; VkBool32 shaderSharedInt64Atomics; VkBool32 shaderFloat16;
  VkBool32 shaderInt8; VkBool32 descriptorIndexing; VkBool32 shaderInputAttachmentArrayDynamicIndexing;
  VkBool32 shaderUniformTexelBufferArrayDynamicIndexing; VkBool32 shaderStorageTexelBufferArrayDynamicIndexing;
  VkBool32 shaderUniformBufferArrayNonUniformIndexing; VkBool32 shaderSampledImageArrayNonUniformIndexing;
  VkBool32 shaderStorageBufferArrayNonUniformIndexing; VkBool32 shaderStorageImageArrayNonUniformIndexing;
  VkBool32 shaderInputAttachmentArrayNonUniformIndexing; VkBool32 shaderUniformTexelBufferArrayNonUniformIndexing;
  VkBool32 shaderStorageTexelBufferArrayNonUniformIndexing; VkBool32 descriptorBindingUniformBufferUpdateAfterBind;
  VkBool32 descriptorBindingSampledImageUpdateAfterBind; VkBool32 descriptorBindingStorageImageUpdateAfterBind;
  VkBool32 descriptorBindingStorageBufferUpdateAfterBind;
  VkBool32 descriptorBindingUniformTexelBufferUpdateAfterBind;
  VkBool32 descriptorBindingStorageTexelBufferUpdateAfterBind; VkBool32 descriptorBindingUpdateUnusedWhilePending;
  VkBool32 descriptorBindingPartiallyBound; VkBool32 descriptorBindingVariableDescriptorCount;
  VkBool32 runtimeDescriptorArray; VkBool32 samplerFilterMinmax; VkBool32 scalarBlockLayout;
  VkBool32 imagelessFramebuffer; VkBool32 uniformBufferStandardLayout; VkBool32 shaderSubgroupExtendedTypes;
  VkBool32 separateDepthStencilLayouts; VkBool32 hostQueryReset; VkBool32 timelineSemaphore;
  VkBool32 bufferDeviceAddress; VkBool32 bufferDeviceAddressCaptureReplay; VkBool32 bufferDeviceAddressMultiDevice;
  VkBool32 vulkanMemoryModel; VkBool32 vulkanMemoryModelDeviceScope;
  VkBool32 vulkanMemoryModelAvailabilityVisibilityChains; VkBool32 shaderOutputViewportIndex;
  VkBool32 shaderOutputLayer; VkBool32 subgroupBroadcastDynamicId;
} VkPhysicalDeviceVulkan12Features;
typedef struct VkMemoryType {
  VkMemoryPropertyFlags propertyFlags; uint32_t heapIndex;
} VkMemoryType;
typedef struct VkMemoryHeap {
  VkDeviceSize size; VkMemoryHeapFlags flags;
} VkMemoryHeap;
typedef struct VkPhysicalDeviceMemoryProperties {
  uint32_t memoryTypeCount; VkMemoryType memoryTypes[VK_MAX_MEMORY_TYPES]; uint32_t memoryHeapCount;
  VkMemoryHeap memoryHeaps[VK_MAX_MEMORY_HEAPS];
} VkPhysicalDeviceMemoryProperties;
typedef struct VkPhysicalDeviceMemoryProperties2 {
  VkStructureType sType; void* pNext; VkPhysicalDeviceMemoryProperties memoryProperties;
} VkPhysicalDeviceMemoryProperties2;
typedef struct VkPhysicalDeviceMemoryBudgetPropertiesEXT {
  VkStructureType sType; void* pNext; VkDeviceSize heapBudget[VK_MAX_MEMORY_HEAPS];
  VkDeviceSize heapUsage[VK_MAX_MEMORY_HEAPS];
} VkPhysicalDeviceMemoryBudgetPropertiesEXT;
typedef struct VkExtent3D {
  uint32_t width; uint32_t height; uint32_t depth;
} VkExtent3D;
typedef struct VkQueueFamilyProperties {
  VkQueueFlags queueFlags; uint32_t queueCount; uint32_t timestampValidBits;
  VkExtent3D minImageTransferGranularity;
} VkQueueFamilyProperties;
typedef struct VkDeviceQueueCreateInfo {
  VkStructureType sType; const void* pNext; VkDeviceQueueCreateFlags flags; uint32_t queueFamilyIndex;
  uint32_t queueCount; const float* pQueuePriorities;
} VkDeviceQueueCreateInfo;
typedef struct VkDeviceCreateInfo {
  VkStructureType sType; const void* pNext; VkDeviceCreateFlags flags; uint32_t queueCreateInfoCount;
  const VkDeviceQueueCreateInfo* pQueueCreateInfos; uint32_t enabledLayerCount;
  const char* const* ppEnabledLayerNames; uint32_t enabledExtensionCount;
  const char* const* ppEnabledExtensionNames; const VkPhysicalDeviceFeatures* pEnabledFeatures;
} VkDeviceCreateInfo;
typedef struct VkBufferCreateInfo {
  VkStructureType sType; const void* pNext; VkBufferCreateFlags flags; VkDeviceSize size; VkBufferUsageFlags usage;
  VkSharingMode sharingMode; uint32_t queueFamilyIndexCount; const uint32_t* pQueueFamilyIndices;
} VkBufferCreateInfo;
typedef struct VkMemoryRequirements {
  VkDeviceSize size; VkDeviceSize alignment; uint32_t memoryTypeBits;
} VkMemoryRequirements;
typedef struct VkMemoryAllocateInfo {
  VkStructureType sType; const void* pNext; VkDeviceSize allocationSize; uint32_t memoryTypeIndex;
} VkMemoryAllocateInfo;
typedef struct VkMemoryAllocateFlagsInfo {
  VkStructureType sType; const void* pNext; VkMemoryAllocateFlags flags; uint32_t deviceMask;
} VkMemoryAllocateFlagsInfo;
typedef struct VkBufferDeviceAddressInfo {
  VkStructureType sType; const void* pNext; VkBuffer buffer;
} VkBufferDeviceAddressInfo;
typedef struct VkCommandPoolCreateInfo {
  VkStructureType sType; const void* pNext; VkCommandPoolCreateFlags flags; uint32_t queueFamilyIndex;
} VkCommandPoolCreateInfo;
typedef struct VkCommandBufferAllocateInfo {
  VkStructureType sType; const void* pNext; VkCommandPool commandPool; VkCommandBufferLevel level;
  uint32_t commandBufferCount;
} VkCommandBufferAllocateInfo;
typedef struct VkCommandBufferBeginInfo {
  VkStructureType sType; const void* pNext; VkCommandBufferUsageFlags flags;
  const VkCommandBufferInheritanceInfo* pInheritanceInfo;
} VkCommandBufferBeginInfo;
typedef struct VkBufferCopy {
  VkDeviceSize srcOffset; VkDeviceSize dstOffset; VkDeviceSize size;
} VkBufferCopy;
typedef struct VkMemoryBarrier {
  VkStructureType sType; const void* pNext; VkAccessFlags srcAccessMask; VkAccessFlags dstAccessMask;
} VkMemoryBarrier;
typedef struct VkSemaphoreTypeCreateInfo {
  VkStructureType sType; const void* pNext; VkSemaphoreType semaphoreType; uint64_t initialValue;
} VkSemaphoreTypeCreateInfo;
typedef struct VkSemaphoreCreateInfo {
  VkStructureType sType; const void* pNext; VkSemaphoreCreateFlags flags;
} VkSemaphoreCreateInfo;
typedef struct VkTimelineSemaphoreSubmitInfo {
  VkStructureType sType; const void* pNext; uint32_t waitSemaphoreValueCount; const uint64_t* pWaitSemaphoreValues;
  uint32_t signalSemaphoreValueCount; const uint64_t* pSignalSemaphoreValues;
} VkTimelineSemaphoreSubmitInfo;
typedef struct VkSubmitInfo {
  VkStructureType sType; const void* pNext; uint32_t waitSemaphoreCount; const VkSemaphore* pWaitSemaphores;
  const VkPipelineStageFlags* pWaitDstStageMask; uint32_t commandBufferCount;
  const VkCommandBuffer* pCommandBuffers; uint32_t signalSemaphoreCount; const VkSemaphore* pSignalSemaphores;
} VkSubmitInfo;
typedef struct VkSemaphoreWaitInfo {
  VkStructureType sType; const void* pNext; VkSemaphoreWaitFlags flags; uint32_t semaphoreCount;
  const VkSemaphore* pSemaphores; const uint64_t* pValues;
} VkSemaphoreWaitInfo;
typedef struct VkFenceCreateInfo {
  VkStructureType sType; const void* pNext; VkFenceCreateFlags flags;
} VkFenceCreateInfo;
typedef struct VkQueryPoolCreateInfo {
  VkStructureType sType; const void* pNext; VkQueryPoolCreateFlags flags; VkQueryType queryType;
  uint32_t queryCount; VkQueryPipelineStatisticFlags pipelineStatistics;
} VkQueryPoolCreateInfo;
typedef struct VkShaderModuleCreateInfo {
  VkStructureType sType; const void* pNext; VkShaderModuleCreateFlags flags; size_t codeSize;
  const uint32_t* pCode;
} VkShaderModuleCreateInfo;
typedef struct VkPushConstantRange {
  VkShaderStageFlags stageFlags; uint32_t offset; uint32_t size;
} VkPushConstantRange;
typedef struct VkPipelineLayoutCreateInfo {
  VkStructureType sType; const void* pNext; VkPipelineLayoutCreateFlags flags; uint32_t setLayoutCount;
  const VkDescriptorSetLayout* pSetLayouts; uint32_t pushConstantRangeCount;
  const VkPushConstantRange* pPushConstantRanges;
} VkPipelineLayoutCreateInfo;
typedef struct VkPipelineShaderStageCreateInfo {
  VkStructureType sType; const void* pNext; VkPipelineShaderStageCreateFlags flags; VkShaderStageFlagBits stage;
  VkShaderModule module; const char* pName; const VkSpecializationInfo* pSpecializationInfo;
} VkPipelineShaderStageCreateInfo;
typedef struct VkComputePipelineCreateInfo {
  VkStructureType sType; const void* pNext; VkPipelineCreateFlags flags; VkPipelineShaderStageCreateInfo stage;
  VkPipelineLayout layout; VkPipeline basePipelineHandle; int32_t basePipelineIndex;
} VkComputePipelineCreateInfo;
typedef struct VkPipelineCacheCreateInfo {
  VkStructureType sType; const void* pNext; VkPipelineCacheCreateFlags flags; size_t initialDataSize;
  const void* pInitialData;
} VkPipelineCacheCreateInfo;

/* VK_KHR_cooperative_matrix (queried where the device lists it) */
typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
  VkStructureType sType;
  void *pNext;
  VkBool32 cooperativeMatrix, cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;
typedef struct VkCooperativeMatrixPropertiesKHR {
  VkStructureType sType;
  void *pNext;
  uint32_t MSize, NSize, KSize;
  int32_t AType, BType, CType, ResultType; /* VkComponentTypeKHR */
  VkBool32 saturatingAccumulation;
  int32_t scope; /* VkScopeKHR */
} VkCooperativeMatrixPropertiesKHR;
typedef VkResult(VKAPI_PTR *PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)(VkPhysicalDevice, uint32_t *,
                                                                                   VkCooperativeMatrixPropertiesKHR *);

/* Entry points as X(name, return type, (parameters)). Global ones come from
 * vkGetInstanceProcAddr(NULL, ...), instance ones from the instance, device ones from
 * vkGetDeviceProcAddr. */
#define PT_VK_GLOBAL(X)                                                                                                \
  X(vkCreateInstance, VkResult, (const VkInstanceCreateInfo *, const VkAllocationCallbacks *, VkInstance *))         \
  X(vkEnumerateInstanceVersion, VkResult, (uint32_t *))                                                                \
  X(vkEnumerateInstanceExtensionProperties, VkResult, (const char *, uint32_t *, VkExtensionProperties *))
#define PT_VK_INSTANCE(X)                                                                                              \
  X(vkDestroyInstance, void, (VkInstance, const VkAllocationCallbacks *))                                              \
  X(vkEnumeratePhysicalDevices, VkResult, (VkInstance, uint32_t *, VkPhysicalDevice *))                                \
  X(vkGetPhysicalDeviceProperties2, void, (VkPhysicalDevice, VkPhysicalDeviceProperties2 *))                           \
  X(vkGetPhysicalDeviceFeatures2, void, (VkPhysicalDevice, VkPhysicalDeviceFeatures2 *))                               \
  X(vkGetPhysicalDeviceMemoryProperties2, void, (VkPhysicalDevice, VkPhysicalDeviceMemoryProperties2 *))               \
  X(vkGetPhysicalDeviceQueueFamilyProperties, void, (VkPhysicalDevice, uint32_t *, VkQueueFamilyProperties *))         \
  X(vkEnumerateDeviceExtensionProperties, VkResult, (VkPhysicalDevice, const char *, uint32_t *, VkExtensionProperties *)) \
  X(vkCreateDevice, VkResult, (VkPhysicalDevice, const VkDeviceCreateInfo *, const VkAllocationCallbacks *, VkDevice *)) \
  X(vkGetDeviceProcAddr, PFN_vkVoidFunction, (VkDevice, const char *))
#define PT_VK_DEVICE(X)                                                                                                \
  X(vkDestroyDevice, void, (VkDevice, const VkAllocationCallbacks *))                                                  \
  X(vkGetDeviceQueue, void, (VkDevice, uint32_t, uint32_t, VkQueue *))                                                 \
  X(vkDeviceWaitIdle, VkResult, (VkDevice))                                                                            \
  X(vkCreateBuffer, VkResult, (VkDevice, const VkBufferCreateInfo *, const VkAllocationCallbacks *, VkBuffer *))     \
  X(vkDestroyBuffer, void, (VkDevice, VkBuffer, const VkAllocationCallbacks *))                                        \
  X(vkGetBufferMemoryRequirements, void, (VkDevice, VkBuffer, VkMemoryRequirements *))                                 \
  X(vkAllocateMemory, VkResult, (VkDevice, const VkMemoryAllocateInfo *, const VkAllocationCallbacks *, VkDeviceMemory *)) \
  X(vkFreeMemory, void, (VkDevice, VkDeviceMemory, const VkAllocationCallbacks *))                                     \
  X(vkBindBufferMemory, VkResult, (VkDevice, VkBuffer, VkDeviceMemory, VkDeviceSize))                                  \
  X(vkMapMemory, VkResult, (VkDevice, VkDeviceMemory, VkDeviceSize, VkDeviceSize, VkMemoryMapFlags, void **))          \
  X(vkGetBufferDeviceAddress, VkDeviceAddress, (VkDevice, const VkBufferDeviceAddressInfo *))                          \
  X(vkCreateCommandPool, VkResult, (VkDevice, const VkCommandPoolCreateInfo *, const VkAllocationCallbacks *, VkCommandPool *)) \
  X(vkDestroyCommandPool, void, (VkDevice, VkCommandPool, const VkAllocationCallbacks *))                              \
  X(vkAllocateCommandBuffers, VkResult, (VkDevice, const VkCommandBufferAllocateInfo *, VkCommandBuffer *))            \
  X(vkBeginCommandBuffer, VkResult, (VkCommandBuffer, const VkCommandBufferBeginInfo *))                               \
  X(vkEndCommandBuffer, VkResult, (VkCommandBuffer))                                                                   \
  X(vkResetCommandBuffer, VkResult, (VkCommandBuffer, VkCommandBufferResetFlags))                                      \
  X(vkCmdPipelineBarrier, void, (VkCommandBuffer, VkPipelineStageFlags, VkPipelineStageFlags, VkDependencyFlags,      \
                                 uint32_t, const VkMemoryBarrier *, uint32_t, const void *, uint32_t, const void *))    \
  X(vkCmdCopyBuffer, void, (VkCommandBuffer, VkBuffer, VkBuffer, uint32_t, const VkBufferCopy *))                      \
  X(vkCmdUpdateBuffer, void, (VkCommandBuffer, VkBuffer, VkDeviceSize, VkDeviceSize, const void *))                    \
  X(vkCmdBindPipeline, void, (VkCommandBuffer, VkPipelineBindPoint, VkPipeline))                                       \
  X(vkCmdPushConstants, void, (VkCommandBuffer, VkPipelineLayout, VkShaderStageFlags, uint32_t, uint32_t, const void *)) \
  X(vkCmdDispatch, void, (VkCommandBuffer, uint32_t, uint32_t, uint32_t))                                              \
  X(vkCmdWriteTimestamp, void, (VkCommandBuffer, VkShaderStageFlagBits, VkQueryPool, uint32_t))                        \
  X(vkCmdResetQueryPool, void, (VkCommandBuffer, VkQueryPool, uint32_t, uint32_t))                                     \
  X(vkQueueSubmit, VkResult, (VkQueue, uint32_t, const VkSubmitInfo *, VkFence))                                       \
  X(vkCreateSemaphore, VkResult, (VkDevice, const VkSemaphoreCreateInfo *, const VkAllocationCallbacks *, VkSemaphore *)) \
  X(vkDestroySemaphore, void, (VkDevice, VkSemaphore, const VkAllocationCallbacks *))                                  \
  X(vkWaitSemaphores, VkResult, (VkDevice, const VkSemaphoreWaitInfo *, uint64_t))                                     \
  X(vkGetSemaphoreCounterValue, VkResult, (VkDevice, VkSemaphore, uint64_t *))                                         \
  X(vkCreateQueryPool, VkResult, (VkDevice, const VkQueryPoolCreateInfo *, const VkAllocationCallbacks *, VkQueryPool *)) \
  X(vkDestroyQueryPool, void, (VkDevice, VkQueryPool, const VkAllocationCallbacks *))                                  \
  X(vkGetQueryPoolResults, VkResult, (VkDevice, VkQueryPool, uint32_t, uint32_t, size_t, void *, VkDeviceSize,        \
                                      VkQueryResultFlags))                                                              \
  X(vkCreateShaderModule, VkResult, (VkDevice, const VkShaderModuleCreateInfo *, const VkAllocationCallbacks *, VkShaderModule *)) \
  X(vkDestroyShaderModule, void, (VkDevice, VkShaderModule, const VkAllocationCallbacks *))                            \
  X(vkCreatePipelineLayout, VkResult, (VkDevice, const VkPipelineLayoutCreateInfo *, const VkAllocationCallbacks *,  \
                                       VkPipelineLayout *))                                                             \
  X(vkDestroyPipelineLayout, void, (VkDevice, VkPipelineLayout, const VkAllocationCallbacks *))                        \
  X(vkCreateComputePipelines, VkResult, (VkDevice, VkPipelineCache, uint32_t, const VkComputePipelineCreateInfo *,   \
                                         const VkAllocationCallbacks *, VkPipeline *))                                  \
  X(vkDestroyPipeline, void, (VkDevice, VkPipeline, const VkAllocationCallbacks *))                                    \
  X(vkCreatePipelineCache, VkResult, (VkDevice, const VkPipelineCacheCreateInfo *, const VkAllocationCallbacks *,    \
                                      VkPipelineCache *))                                                               \
  X(vkDestroyPipelineCache, void, (VkDevice, VkPipelineCache, const VkAllocationCallbacks *))                          \
  X(vkGetPipelineCacheData, VkResult, (VkDevice, VkPipelineCache, size_t *, void *))

#define PT_VK_FIELD(name, ret, args) ret(VKAPI_PTR *name) args;
typedef PFN_vkVoidFunction(VKAPI_PTR *PFN_vkGetInstanceProcAddr)(VkInstance, const char *);
typedef struct { PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr; PT_VK_GLOBAL(PT_VK_FIELD) PT_VK_INSTANCE(PT_VK_FIELD) } vk_inst_api;
typedef struct { PT_VK_DEVICE(PT_VK_FIELD) } vk_dev_api;

/* libshaderc's C API (shaderc.h): the handful of calls and enum values we use. */
typedef struct shaderc_compiler *shaderc_compiler_t;
typedef struct shaderc_compile_options *shaderc_compile_options_t;
typedef struct shaderc_compilation_result *shaderc_compilation_result_t;
#define shaderc_glsl_compute_shader 2
#define shaderc_target_env_vulkan 0
#define shaderc_env_version_vulkan_1_2 ((1u << 22) | (2u << 12))
#define shaderc_optimization_level_zero 0
#define shaderc_optimization_level_performance 2
#define shaderc_compilation_status_success 0
#define PT_SHADERC_FUNCS(X)                                                                                            \
  X(shaderc_compiler_initialize, shaderc_compiler_t, (void))                                                           \
  X(shaderc_compiler_release, void, (shaderc_compiler_t))                                                              \
  X(shaderc_compile_options_initialize, shaderc_compile_options_t, (void))                                             \
  X(shaderc_compile_options_release, void, (shaderc_compile_options_t))                                                \
  X(shaderc_compile_options_add_macro_definition, void, (shaderc_compile_options_t, const char *, size_t, const char *, size_t)) \
  X(shaderc_compile_options_set_target_env, void, (shaderc_compile_options_t, int, uint32_t))                          \
  X(shaderc_compile_options_set_optimization_level, void, (shaderc_compile_options_t, int))                            \
  X(shaderc_compile_into_spv, shaderc_compilation_result_t, (const shaderc_compiler_t, const char *, size_t, int,      \
                                                             const char *, const char *, const shaderc_compile_options_t)) \
  X(shaderc_result_release, void, (shaderc_compilation_result_t))                                                      \
  X(shaderc_result_get_length, size_t, (const shaderc_compilation_result_t))                                           \
  X(shaderc_result_get_bytes, const char *, (const shaderc_compilation_result_t))                                      \
  X(shaderc_result_get_compilation_status, int, (const shaderc_compilation_result_t))                                  \
  X(shaderc_result_get_error_message, const char *, (const shaderc_compilation_result_t))                              \
  X(shaderc_get_spv_version, void, (unsigned int *, unsigned int *))
#define PT_SHADERC_FIELD(name, ret, args) ret (*name) args;
typedef struct { PT_SHADERC_FUNCS(PT_SHADERC_FIELD) } shaderc_api;

#endif
