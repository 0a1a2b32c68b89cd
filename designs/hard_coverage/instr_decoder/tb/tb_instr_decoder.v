`timescale 1ns/1ps
// Self-checking testbench for instr_decoder. The reference model matches the
// word against the MATCH/MASK table of riscv-opcodes (first hit wins), then
// looks the class, ALU operation, immediate format and register use up per
// instruction. Stimulus: every instruction with random free fields and every
// illegal reason (directed), then random words, then random words with a
// legal opcode, funct3 and funct7 forced (so the legal paths get exercised).
module tb_instr_decoder;
    reg  [31:0] inst;
    wire [5:0]  kind;
    wire [3:0]  opclass, alu_op;
    wire [2:0]  imm_type, ill_reason;
    wire [31:0] imm;
    wire [4:0]  rd, rs1, rs2;
    wire        rd_used, rs1_used, rs2_used, illegal;

    instr_decoder dut (.inst(inst), .kind(kind), .opclass(opclass), .alu_op(alu_op),
                       .imm_type(imm_type), .imm(imm), .rd(rd), .rs1(rs1), .rs2(rs2),
                       .rd_used(rd_used), .rs1_used(rs1_used), .rs2_used(rs2_used),
                       .illegal(illegal), .ill_reason(ill_reason));

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    reg [31:0] match [0:39];
    reg [31:0] mask  [0:39];
    integer i, n, errors, legal_seen;
    reg [5:0]  e_kind;
    reg [3:0]  e_class, e_alu;
    reg [2:0]  e_imm_type, e_reason;
    reg [31:0] e_imm;
    reg [2:0]  e_use;   // {rd, rs1, rs2}
    reg [4:0]  op5;

    initial begin
        // riscv-opcodes MATCH / MASK, in kind order
        match[0]=32'h37;       mask[0]=32'h7f;        // lui
        match[1]=32'h17;       mask[1]=32'h7f;        // auipc
        match[2]=32'h6f;       mask[2]=32'h7f;        // jal
        match[3]=32'h67;       mask[3]=32'h707f;      // jalr
        match[4]=32'h63;       mask[4]=32'h707f;      // beq
        match[5]=32'h1063;     mask[5]=32'h707f;      // bne
        match[6]=32'h4063;     mask[6]=32'h707f;      // blt
        match[7]=32'h5063;     mask[7]=32'h707f;      // bge
        match[8]=32'h6063;     mask[8]=32'h707f;      // bltu
        match[9]=32'h7063;     mask[9]=32'h707f;      // bgeu
        match[10]=32'h3;       mask[10]=32'h707f;     // lb
        match[11]=32'h1003;    mask[11]=32'h707f;     // lh
        match[12]=32'h2003;    mask[12]=32'h707f;     // lw
        match[13]=32'h4003;    mask[13]=32'h707f;     // lbu
        match[14]=32'h5003;    mask[14]=32'h707f;     // lhu
        match[15]=32'h23;      mask[15]=32'h707f;     // sb
        match[16]=32'h1023;    mask[16]=32'h707f;     // sh
        match[17]=32'h2023;    mask[17]=32'h707f;     // sw
        match[18]=32'h13;      mask[18]=32'h707f;     // addi
        match[19]=32'h2013;    mask[19]=32'h707f;     // slti
        match[20]=32'h3013;    mask[20]=32'h707f;     // sltiu
        match[21]=32'h4013;    mask[21]=32'h707f;     // xori
        match[22]=32'h6013;    mask[22]=32'h707f;     // ori
        match[23]=32'h7013;    mask[23]=32'h707f;     // andi
        match[24]=32'h1013;    mask[24]=32'hfe00707f; // slli
        match[25]=32'h5013;    mask[25]=32'hfe00707f; // srli
        match[26]=32'h40005013;mask[26]=32'hfe00707f; // srai
        match[27]=32'h33;      mask[27]=32'hfe00707f; // add
        match[28]=32'h40000033;mask[28]=32'hfe00707f; // sub
        match[29]=32'h1033;    mask[29]=32'hfe00707f; // sll
        match[30]=32'h2033;    mask[30]=32'hfe00707f; // slt
        match[31]=32'h3033;    mask[31]=32'hfe00707f; // sltu
        match[32]=32'h4033;    mask[32]=32'hfe00707f; // xor
        match[33]=32'h5033;    mask[33]=32'hfe00707f; // srl
        match[34]=32'h40005033;mask[34]=32'hfe00707f; // sra
        match[35]=32'h6033;    mask[35]=32'hfe00707f; // or
        match[36]=32'h7033;    mask[36]=32'hfe00707f; // and
        match[37]=32'hf;       mask[37]=32'h707f;     // fence
        match[38]=32'h73;      mask[38]=32'hffffffff; // ecall
        match[39]=32'h100073;  mask[39]=32'hffffffff; // ebreak
    end

    task model;
        begin
            e_kind = 6'd63;
            for (i = 39; i >= 0; i = i - 1)
                if ((inst & mask[i]) == match[i]) e_kind = i;
            op5 = inst[6:2];
            e_class = (inst[1:0] != 2'b11) ? 4'd15 :
                      op5 == 5'b01101 ? 4'd0 : op5 == 5'b00101 ? 4'd1 : op5 == 5'b11011 ? 4'd2 :
                      op5 == 5'b11001 ? 4'd3 : op5 == 5'b11000 ? 4'd4 : op5 == 5'b00000 ? 4'd5 :
                      op5 == 5'b01000 ? 4'd6 : op5 == 5'b00100 ? 4'd7 : op5 == 5'b01100 ? 4'd8 :
                      op5 == 5'b00011 ? 4'd9 : op5 == 5'b11100 ? 4'd10 : 4'd15;
            if (e_kind != 6'd63)             e_reason = 3'd0;
            else if (inst[1:0] != 2'b11)     e_reason = 3'd1;
            else if (e_class == 4'd15)       e_reason = 3'd2;
            else if (e_class == 4'd8)        e_reason = 3'd4;   // every funct3 of OP exists
            else if (e_class == 4'd7)        e_reason = 3'd4;   // only shifts can fail in OP-IMM
            else if (e_class == 4'd10 && inst[14:12] == 3'b000) e_reason = 3'd5;
            else                             e_reason = 3'd3;
            // per-instruction fields
            e_alu = 4'd0; e_imm_type = 3'd0; e_use = 3'b000;
            case (e_kind)
                0, 1: begin e_imm_type = 4; e_use = 3'b100; end
                2:    begin e_imm_type = 5; e_use = 3'b100; end
                3:    begin e_imm_type = 1; e_use = 3'b110; end
                4:  begin e_imm_type = 3; e_use = 3'b011; e_alu = 10; end
                5:  begin e_imm_type = 3; e_use = 3'b011; e_alu = 11; end
                6:  begin e_imm_type = 3; e_use = 3'b011; e_alu = 12; end
                7:  begin e_imm_type = 3; e_use = 3'b011; e_alu = 13; end
                8:  begin e_imm_type = 3; e_use = 3'b011; e_alu = 14; end
                9:  begin e_imm_type = 3; e_use = 3'b011; e_alu = 15; end
                10, 11, 12, 13, 14: begin e_imm_type = 1; e_use = 3'b110; end
                15, 16, 17: begin e_imm_type = 2; e_use = 3'b011; end
                18: begin e_imm_type = 1; e_use = 3'b110; e_alu = 0; end
                19: begin e_imm_type = 1; e_use = 3'b110; e_alu = 3; end
                20: begin e_imm_type = 1; e_use = 3'b110; e_alu = 4; end
                21: begin e_imm_type = 1; e_use = 3'b110; e_alu = 5; end
                22: begin e_imm_type = 1; e_use = 3'b110; e_alu = 8; end
                23: begin e_imm_type = 1; e_use = 3'b110; e_alu = 9; end
                24: begin e_imm_type = 6; e_use = 3'b110; e_alu = 2; end
                25: begin e_imm_type = 6; e_use = 3'b110; e_alu = 6; end
                26: begin e_imm_type = 6; e_use = 3'b110; e_alu = 7; end
                27: begin e_use = 3'b111; e_alu = 0; end
                28: begin e_use = 3'b111; e_alu = 1; end
                29: begin e_use = 3'b111; e_alu = 2; end
                30: begin e_use = 3'b111; e_alu = 3; end
                31: begin e_use = 3'b111; e_alu = 4; end
                32: begin e_use = 3'b111; e_alu = 5; end
                33: begin e_use = 3'b111; e_alu = 6; end
                34: begin e_use = 3'b111; e_alu = 7; end
                35: begin e_use = 3'b111; e_alu = 8; end
                36: begin e_use = 3'b111; e_alu = 9; end
                default: ;
            endcase
            case (e_imm_type)
                1: e_imm = $signed(inst) >>> 20;
                2: e_imm = {{21{inst[31]}}, inst[30:25], inst[11:7]};
                3: e_imm = {{20{inst[31]}}, inst[7], inst[30:25], inst[11:8], 1'b0};
                4: e_imm = inst & 32'hfffff000;
                5: e_imm = {{12{inst[31]}}, inst[19:12], inst[20], inst[30:21], 1'b0};
                6: e_imm = (inst >> 20) & 32'h1f;
                default: e_imm = 0;
            endcase
        end
    endtask

    task check;
        begin
            #1;
            model;
            if (kind !== e_kind || opclass !== e_class || alu_op !== e_alu || imm_type !== e_imm_type ||
                imm !== e_imm || {rd_used, rs1_used, rs2_used} !== e_use || illegal !== (e_reason != 0) ||
                ill_reason !== e_reason || rd !== inst[11:7] || rs1 !== inst[19:15] || rs2 !== inst[24:20]) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH inst=%h: kind=%0d cls=%0d alu=%0d it=%0d imm=%h use=%b why=%0d; expected %0d %0d %0d %0d %h %b %0d",
                             inst, kind, opclass, alu_op, imm_type, imm, {rd_used, rs1_used, rs2_used}, ill_reason,
                             e_kind, e_class, e_alu, e_imm_type, e_imm, e_use, e_reason);
            end
            if (e_kind != 6'd63) legal_seen = legal_seen + 1;
        end
    endtask

    initial begin
        errors = 0; legal_seen = 0;
        seed = 32'hDEC0_0DE5;
        // every instruction with random free fields
        for (n = 0; n < 40 * 8; n = n + 1) begin
            inst = (urand(0) & ~mask[n % 40]) | match[n % 40];
            check;
        end
        // one of each illegal reason
        inst = 32'h00000001; check;   // compressed
        inst = 32'h0000007f; check;   // unknown opcode
        inst = 32'h00003003; check;   // load funct3 3
        inst = 32'h02000033; check;   // OP with funct7 1 (M extension)
        inst = 32'h00200073; check;   // SYSTEM funct3 0, not ecall/ebreak
        inst = 32'h00001073; check;   // csrrw: SYSTEM funct3 1
        // random words
        for (n = 0; n < 3000; n = n + 1) begin
            inst = urand(0); check;
        end
        // random words with the low bits and funct7 pushed towards legal values
        for (n = 0; n < 3000; n = n + 1) begin
            inst = urand(0) | 32'h3;
            if (urand(0) % 2) inst[31:25] = (urand(0) % 2) ? 7'b0100000 : 7'b0000000;
            check;
        end
        if (legal_seen < 1000) begin
            $display("coverage: only %0d legal instructions", legal_seen);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
