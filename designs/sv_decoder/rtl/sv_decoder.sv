// Decoder of a small 8-bit accumulator ISA: instr = {opcode[7:4], rd[3:2], rs[1:0]}.
module sv_decoder (
    input  logic [7:0] instr,
    output logic [2:0] alu_op,
    output logic       reg_we,
    output logic       mem_re,
    output logic       mem_we,
    output logic       use_imm,
    output logic       branch,
    output logic       jump,
    output logic       illegal,
    output logic [7:0] imm,
    output logic [1:0] pc_step
);
    typedef enum logic [3:0] {
        OP_NOP  = 4'd0,  OP_ADD  = 4'd1,  OP_SUB = 4'd2,  OP_AND = 4'd3,
        OP_OR   = 4'd4,  OP_XOR  = 4'd5,  OP_SHL = 4'd6,  OP_SHR = 4'd7,
        OP_ADDI = 4'd8,  OP_LD   = 4'd9,  OP_ST  = 4'd10, OP_BEQ = 4'd11,
        OP_BNE  = 4'd12, OP_JMP  = 4'd13
    } opcode_t;

    typedef enum logic [2:0] {
        ALU_ADD = 3'd0, ALU_SUB = 3'd1, ALU_AND = 3'd2, ALU_OR = 3'd3,
        ALU_XOR = 3'd4, ALU_SHL = 3'd5, ALU_SHR = 3'd6, ALU_PASS = 3'd7
    } alu_t;

    logic [3:0] opcode;
    alu_t       op;
    logic [1:0] rd;
    logic [1:0] rs;
    logic       writes;

    assign opcode = instr[7:4];
    assign rd     = instr[3:2];
    assign rs     = instr[1:0];

    always_comb begin
        op      = ALU_PASS;
        writes  = 1'b0;
        mem_re  = 1'b0;
        mem_we  = 1'b0;
        use_imm = 1'b0;
        branch  = 1'b0;
        jump    = 1'b0;
        illegal = 1'b0;
        unique case (opcode)
            OP_NOP:  ;
            OP_ADD:  begin op = ALU_ADD; writes = 1'b1; end
            OP_SUB:  begin op = ALU_SUB; writes = 1'b1; end
            OP_AND:  begin op = ALU_AND; writes = 1'b1; end
            OP_OR:   begin op = ALU_OR;  writes = 1'b1; end
            OP_XOR:  begin op = ALU_XOR; writes = 1'b1; end
            OP_SHL:  begin op = ALU_SHL; writes = 1'b1; end
            OP_SHR:  begin op = ALU_SHR; writes = 1'b1; end
            OP_ADDI: begin op = ALU_ADD; writes = 1'b1; use_imm = 1'b1; end
            OP_LD:   begin op = ALU_ADD; writes = 1'b1; use_imm = 1'b1; mem_re = 1'b1; end
            OP_ST:   begin op = ALU_ADD; use_imm = 1'b1; mem_we = 1'b1; end
            OP_BEQ, OP_BNE: begin op = ALU_SUB; branch = 1'b1; use_imm = 1'b1; end
            OP_JMP:  begin jump = 1'b1; use_imm = 1'b1; end
            default: illegal = 1'b1;
        endcase
    end

    // register 0 reads as zero, so a write to it is dropped
    assign reg_we = writes && (rd != 2'd0);
    assign alu_op = op;

    // branch offsets are signed; the other immediates are zero-extended and scaled by the register field
    assign imm = branch  ? {{6{rs[1]}}, rs}
               : use_imm ? ({6'd0, rs} << 2) | {6'd0, rd}
               : 8'd0;

    // an instruction with an immediate takes a second byte
    assign pc_step = 2'd1 + {1'b0, use_imm};
endmodule
