// instr_decoder: combinational RV32I-subset instruction decoder (after the
// Ibex decoder of LLM4DV's experiments). 40 instructions: LUI, AUIPC, JAL,
// JALR, 6 branches, 5 loads, 3 stores, 9 OP-IMM (shifts check funct7), 10 OP
// (funct7 checked), FENCE, ECALL, EBREAK. Anything else is illegal, with the
// first reason found: not a 32-bit encoding, unknown opcode, bad funct3, bad
// funct7, or a SYSTEM word that is neither ECALL nor EBREAK.
module instr_decoder (
    input  wire [31:0] inst,
    output reg  [5:0]  kind,        // instruction index (see the K_ constants), 63: illegal
    output reg  [3:0]  opclass,     // class of the opcode (C_ constants), 15: unknown opcode
    output reg  [3:0]  alu_op,      // A_ constants
    output reg  [2:0]  imm_type,    // I_ constants
    output reg  [31:0] imm,         // decoded immediate (0 for I_NONE)
    output wire [4:0]  rd,
    output wire [4:0]  rs1,
    output wire [4:0]  rs2,
    output reg         rd_used,
    output reg         rs1_used,
    output reg         rs2_used,
    output wire        illegal,
    output reg  [2:0]  ill_reason   // R_ constants
);
    localparam [3:0] C_LUI = 4'd0, C_AUIPC = 4'd1, C_JAL = 4'd2, C_JALR = 4'd3, C_BRANCH = 4'd4,
                     C_LOAD = 4'd5, C_STORE = 4'd6, C_OPIMM = 4'd7, C_OP = 4'd8, C_FENCE = 4'd9,
                     C_SYSTEM = 4'd10, C_NONE = 4'd15;
    localparam [3:0] A_ADD = 4'd0, A_SUB = 4'd1, A_SLL = 4'd2, A_SLT = 4'd3, A_SLTU = 4'd4,
                     A_XOR = 4'd5, A_SRL = 4'd6, A_SRA = 4'd7, A_OR = 4'd8, A_AND = 4'd9,
                     A_EQ = 4'd10, A_NE = 4'd11, A_LT = 4'd12, A_GE = 4'd13, A_LTU = 4'd14, A_GEU = 4'd15;
    localparam [2:0] I_NONE = 3'd0, I_I = 3'd1, I_S = 3'd2, I_B = 3'd3, I_U = 3'd4, I_J = 3'd5, I_SH = 3'd6;
    localparam [2:0] R_NONE = 3'd0, R_COMPRESSED = 3'd1, R_OPCODE = 3'd2, R_FUNCT3 = 3'd3,
                     R_FUNCT7 = 3'd4, R_SYSTEM = 3'd5;
    // kinds: 0 LUI 1 AUIPC 2 JAL 3 JALR 4..9 BEQ BNE BLT BGE BLTU BGEU 10..14 LB LH LW LBU LHU
    // 15..17 SB SH SW 18..26 ADDI SLTI SLTIU XORI ORI ANDI SLLI SRLI SRAI
    // 27..36 ADD SUB SLL SLT SLTU XOR SRL SRA OR AND 37 FENCE 38 ECALL 39 EBREAK
    localparam [5:0] K_ILLEGAL = 6'd63;

    wire [4:0] opcode = inst[6:2];     // inst[1:0] = 2'b11 for every 32-bit encoding
    wire [2:0] funct3 = inst[14:12];
    wire [6:0] funct7 = inst[31:25];
    assign rd  = inst[11:7];
    assign rs1 = inst[19:15];
    assign rs2 = inst[24:20];
    assign illegal = (ill_reason != R_NONE);

    reg [5:0] k;        // kind before the illegal check
    reg [2:0] why;      // illegal reason

    always @* begin
        k = K_ILLEGAL;
        why = R_NONE;
        opclass = C_NONE;
        if (inst[1:0] != 2'b11) begin
            why = R_COMPRESSED;
        end else begin
            case (opcode)
                5'b01101: begin opclass = C_LUI;   k = 6'd0; end
                5'b00101: begin opclass = C_AUIPC; k = 6'd1; end
                5'b11011: begin opclass = C_JAL;   k = 6'd2; end
                5'b11001: begin
                    opclass = C_JALR;
                    if (funct3 == 3'b000) k = 6'd3; else why = R_FUNCT3;
                end
                5'b11000: begin
                    opclass = C_BRANCH;
                    case (funct3)
                        3'b000: k = 6'd4;
                        3'b001: k = 6'd5;
                        3'b100: k = 6'd6;
                        3'b101: k = 6'd7;
                        3'b110: k = 6'd8;
                        3'b111: k = 6'd9;
                        default: why = R_FUNCT3;
                    endcase
                end
                5'b00000: begin
                    opclass = C_LOAD;
                    case (funct3)
                        3'b000: k = 6'd10;
                        3'b001: k = 6'd11;
                        3'b010: k = 6'd12;
                        3'b100: k = 6'd13;
                        3'b101: k = 6'd14;
                        default: why = R_FUNCT3;
                    endcase
                end
                5'b01000: begin
                    opclass = C_STORE;
                    case (funct3)
                        3'b000: k = 6'd15;
                        3'b001: k = 6'd16;
                        3'b010: k = 6'd17;
                        default: why = R_FUNCT3;
                    endcase
                end
                5'b00100: begin
                    opclass = C_OPIMM;
                    case (funct3)
                        3'b000: k = 6'd18;
                        3'b010: k = 6'd19;
                        3'b011: k = 6'd20;
                        3'b100: k = 6'd21;
                        3'b110: k = 6'd22;
                        3'b111: k = 6'd23;
                        3'b001: if (funct7 == 7'b0000000) k = 6'd24; else why = R_FUNCT7;
                        default: begin   // 3'b101: SRLI / SRAI
                            if (funct7 == 7'b0000000)      k = 6'd25;
                            else if (funct7 == 7'b0100000) k = 6'd26;
                            else                           why = R_FUNCT7;
                        end
                    endcase
                end
                5'b01100: begin
                    opclass = C_OP;
                    if (funct7 == 7'b0000000) begin
                        case (funct3)
                            3'b000: k = 6'd27;
                            3'b001: k = 6'd29;
                            3'b010: k = 6'd30;
                            3'b011: k = 6'd31;
                            3'b100: k = 6'd32;
                            3'b101: k = 6'd33;
                            3'b110: k = 6'd35;
                            default: k = 6'd36;
                        endcase
                    end else if (funct7 == 7'b0100000 && funct3 == 3'b000) begin
                        k = 6'd28;
                    end else if (funct7 == 7'b0100000 && funct3 == 3'b101) begin
                        k = 6'd34;
                    end else begin
                        why = R_FUNCT7;
                    end
                end
                5'b00011: begin
                    opclass = C_FENCE;
                    if (funct3 == 3'b000) k = 6'd37; else why = R_FUNCT3;
                end
                5'b11100: begin
                    opclass = C_SYSTEM;
                    if (funct3 != 3'b000)          why = R_FUNCT3;
                    else if (inst == 32'h00000073) k = 6'd38;
                    else if (inst == 32'h00100073) k = 6'd39;
                    else                           why = R_SYSTEM;
                end
                default: why = R_OPCODE;
            endcase
        end
        kind = k;
        ill_reason = why;
    end

    // fields that follow from the kind
    always @* begin
        alu_op = A_ADD;
        imm_type = I_NONE;
        rd_used = 1'b0;
        rs1_used = 1'b0;
        rs2_used = 1'b0;
        if (kind <= 6'd1) begin                      // LUI, AUIPC
            imm_type = I_U; rd_used = 1'b1;
        end else if (kind == 6'd2) begin             // JAL
            imm_type = I_J; rd_used = 1'b1;
        end else if (kind == 6'd3) begin             // JALR
            imm_type = I_I; rd_used = 1'b1; rs1_used = 1'b1;
        end else if (kind <= 6'd9) begin             // branches: EQ NE LT GE LTU GEU
            imm_type = I_B; rs1_used = 1'b1; rs2_used = 1'b1;
            case (kind)
                6'd4:    alu_op = A_EQ;
                6'd5:    alu_op = A_NE;
                6'd6:    alu_op = A_LT;
                6'd7:    alu_op = A_GE;
                6'd8:    alu_op = A_LTU;
                default: alu_op = A_GEU;
            endcase
        end else if (kind <= 6'd14) begin            // loads
            imm_type = I_I; rd_used = 1'b1; rs1_used = 1'b1;
        end else if (kind <= 6'd17) begin            // stores
            imm_type = I_S; rs1_used = 1'b1; rs2_used = 1'b1;
        end else if (kind <= 6'd26) begin            // OP-IMM
            rd_used = 1'b1; rs1_used = 1'b1;
            imm_type = (kind >= 6'd24) ? I_SH : I_I;
            case (kind)
                6'd19: alu_op = A_SLT;
                6'd20: alu_op = A_SLTU;
                6'd21: alu_op = A_XOR;
                6'd22: alu_op = A_OR;
                6'd23: alu_op = A_AND;
                6'd24: alu_op = A_SLL;
                6'd25: alu_op = A_SRL;
                6'd26: alu_op = A_SRA;
                default: alu_op = A_ADD;
            endcase
        end else if (kind <= 6'd36) begin            // OP
            rd_used = 1'b1; rs1_used = 1'b1; rs2_used = 1'b1;
            case (kind)
                6'd28:   alu_op = A_SUB;
                6'd29:   alu_op = A_SLL;
                6'd30:   alu_op = A_SLT;
                6'd31:   alu_op = A_SLTU;
                6'd32:   alu_op = A_XOR;
                6'd33:   alu_op = A_SRL;
                6'd34:   alu_op = A_SRA;
                6'd35:   alu_op = A_OR;
                6'd36:   alu_op = A_AND;
                default: alu_op = A_ADD;
            endcase
        end
    end

    // the immediate of the decoded format
    always @* begin
        case (imm_type)
            I_I:     imm = {{20{inst[31]}}, inst[31:20]};
            I_S:     imm = {{20{inst[31]}}, inst[31:25], inst[11:7]};
            I_B:     imm = {{19{inst[31]}}, inst[31], inst[7], inst[30:25], inst[11:8], 1'b0};
            I_U:     imm = {inst[31:12], 12'd0};
            I_J:     imm = {{11{inst[31]}}, inst[31], inst[19:12], inst[20], inst[30:21], 1'b0};
            I_SH:    imm = {27'd0, inst[24:20]};
            default: imm = 32'd0;
        endcase
    end
endmodule
